// The whole audio front-end behind a boundary that never throws, for callers built without
// exceptions (the saguaro driver): WAV file -> mono -> resampled -> log-mel features.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "saguaro/audio/log_mel.h"

namespace saguaro::audio {

/// A value or a one-line error message; exactly one of them is meaningful.
template <typename T>
struct Result {
  T value{};
  std::string error;
  bool ok() const { return error.empty(); }
};

/// The configuration `saguaro features audio` uses: the preset `melPreset` ("whisper-80",
/// "whisper-128", "gemma4"), refined by `preprocessorConfig` when that path is not empty; with `pad30s`,
/// the audio is padded or trimmed to chunkSamples (30 s) before framing.
Result<LogMelConfig> makeConfig(const std::string& melPreset, const std::string& preprocessorConfig,
                                bool pad30s) noexcept;

/// Reads the WAV file, mixes it to mono and resamples it to `config.sampleRate`; audio longer than
/// `config.maxSeconds()` is refused before it is decoded.
Result<std::vector<float>> loadAudio(const std::string& wavPath, const LogMelConfig& config) noexcept;

/// loadAudio, then the log-mel features of `config`. Errors name the file.
Result<Features> extractFeatures(const std::string& wavPath, const LogMelConfig& config) noexcept;

/// The same of a WAV file held in memory (e.g. a request's base64 payload); errors name it `name`.
Result<Features> extractFeaturesFromMemory(const uint8_t* data, size_t size, const std::string& name,
                                           const LogMelConfig& config) noexcept;

/// The frames of `f` that hold real audio (the first nValid), time-major [nValid, nMels]: what Gemma 4's audio
/// tower reads (padding frames are zero, exactly as its convolutions' own padding).
std::vector<float> validFramesTimeMajor(const Features& f);

/// The valid frames (time-major, [n, nMels]) of the WAV read from file descriptor `fd` (a pipe) as its bytes
/// arrive: at config.sampleRate every frame is computed as soon as its samples are in (LogMelStream), with the bits
/// extractFeatures gives the whole file; at another rate the samples are resampled at the end. Errors name `name`.
Result<std::vector<float>> streamValidFrames(int fd, const std::string& name, const LogMelConfig& config) noexcept;

/// Times LogMelExtractor::compute on `samples` `runs` times after one warm-up call (the extractor is
/// built once, outside the timing). Milliseconds per run, in run order.
Result<std::vector<double>> timeLogMel(const std::vector<float>& samples, const LogMelConfig& config,
                                       int runs) noexcept;

}  // namespace saguaro::audio
