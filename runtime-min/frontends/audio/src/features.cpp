// The no-throw boundary of the audio front-end: every exception becomes Result::error.
#include "saguaro/audio/features.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <exception>
#include <new>

#include "saguaro/audio/log_mel_stream.h"
#include "saguaro/audio/resample.h"
#include "saguaro/audio/wav.h"
#include "saguaro/audio/wav_stream.h"

namespace saguaro::audio {
namespace {

/// Runs `body` and turns any exception into a one-line error, prefixed with `context` when the
/// message does not already start with it.
template <typename T, typename Body>
Result<T> guarded(const std::string& context, Body body) noexcept {
  Result<T> r;
  auto failWith = [&](const std::string& message) {
    r.value = T{};
    r.error = context.empty() || message.rfind(context, 0) == 0 ? message : context + ": " + message;
  };
  try {
    r.value = body();
  } catch (const std::bad_alloc&) {
    failWith("out of memory");
  } catch (const std::exception& e) {
    failWith(e.what());
  } catch (...) {
    failWith("unknown error");
  }
  return r;
}

}  // namespace

Result<LogMelConfig> makeConfig(const std::string& melPreset, const std::string& preprocessorConfig,
                                bool pad30s) noexcept {
  // fromPreprocessorConfig names the config file in its own errors; a bad preset names the preset.
  return guarded<LogMelConfig>("", [&] {
    LogMelConfig c = LogMelConfig::preset(melPreset);
    if (!preprocessorConfig.empty()) c = LogMelConfig::fromPreprocessorConfig(preprocessorConfig, c);
    if (pad30s) c.padOrTrimTo = c.chunkSamples;
    c.validate();
    return c;
  });
}

namespace {

std::vector<float> load(const std::string& wavPath, const LogMelConfig& config) {
  Pcm pcm = readWav(wavPath, config.maxSeconds());
  return resample(pcm.samples, pcm.sampleRate, config.sampleRate);
}

}  // namespace

Result<std::vector<float>> loadAudio(const std::string& wavPath, const LogMelConfig& config) noexcept {
  return guarded<std::vector<float>>(wavPath, [&] { return load(wavPath, config); });
}

Result<Features> extractFeatures(const std::string& wavPath, const LogMelConfig& config) noexcept {
  return guarded<Features>(wavPath, [&] { return logMel(load(wavPath, config), config); });
}

Result<Features> extractFeaturesFromMemory(const uint8_t* data, size_t size, const std::string& name,
                                           const LogMelConfig& config) noexcept {
  return guarded<Features>(name, [&] {
    Pcm pcm = decodeWav(data, size, name, config.maxSeconds());
    return logMel(resample(pcm.samples, pcm.sampleRate, config.sampleRate), config);
  });
}

std::vector<float> validFramesTimeMajor(const Features& f) {
  std::vector<float> frames = f.transposed();
  frames.resize(f.nValid * f.nMels);  // the valid frames come first
  return frames;
}

Result<std::vector<float>> streamValidFrames(int fd, const std::string& name, const LogMelConfig& config) noexcept {
  return guarded<std::vector<float>>(name, [&] {
    WavStream wav(name);
    LogMelStream mel(config);
    std::vector<float> samples, frames, other;  // other: samples at another rate, resampled at the end
    std::vector<uint8_t> bytes(64 * 1024);
    for (;;) {
      const ssize_t got = ::read(fd, bytes.data(), bytes.size());  // whatever has arrived, up to 64 KiB
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) throw AudioError(std::string("read error: ") + std::strerror(errno));
      if (got == 0) break;
      samples.clear();
      wav.push(bytes.data(), static_cast<size_t>(got), &samples);
      if (wav.sampleRate() == config.sampleRate)
        mel.push(samples.data(), samples.size(), &frames);
      else if (config.maxSamples && (other.size() + samples.size()) / static_cast<double>(wav.sampleRate()) >
                                        config.maxSeconds())
        throw AudioError(tooLong((other.size() + samples.size()) / static_cast<double>(wav.sampleRate()),
                                 config.maxSeconds()));
      else
        other.insert(other.end(), samples.begin(), samples.end());
    }
    wav.finish();
    if (wav.sampleRate() != config.sampleRate) {
      const std::vector<float> resampled = resample(other, wav.sampleRate(), config.sampleRate);
      mel.push(resampled.data(), resampled.size(), &frames);
    }
    mel.finish();
    return frames;
  });
}

Result<std::vector<double>> timeLogMel(const std::vector<float>& samples, const LogMelConfig& config,
                                       int runs) noexcept {
  return guarded<std::vector<double>>("", [&] {
    LogMelExtractor extractor(config);
    extractor.compute(samples);  // warm-up: caches, page faults of the work buffers
    std::vector<double> ms;
    for (int i = 0; i < runs; ++i) {
      const auto start = std::chrono::steady_clock::now();
      Features f = extractor.compute(samples);
      const auto stop = std::chrono::steady_clock::now();
      if (f.data.empty()) throw AudioError("no features");
      ms.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
    }
    return ms;
  });
}

}  // namespace saguaro::audio
