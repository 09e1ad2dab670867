// WAV reading: RIFF/WAVE PCM (8/16/24/32-bit integer) and IEEE float (32/64-bit), plain or
// WAVE_FORMAT_EXTENSIBLE, any channel count, mixed down to mono float samples.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "saguaro/audio/error.h"

namespace saguaro::audio {

/// Mono samples in [-1, 1) scaled as whisper.load_audio does (int16 / 32768), at `sampleRate` Hz.
struct Pcm {
  uint32_t sampleRate = 0;
  uint16_t sourceChannels = 0;  // channels in the file before the mix-down
  std::vector<float> samples;
};

/// Sample rates outside [kMinSampleRate, kMaxSampleRate] are refused: a tiny file at 1 Hz would
/// otherwise resample into a huge buffer.
inline constexpr uint32_t kMinSampleRate = 4000;
inline constexpr uint32_t kMaxSampleRate = 768000;

/// Decodes a WAV file held in memory; `name` is used in error messages. Throws AudioError.
/// Never allocates more than a small multiple of `size`, whatever the header claims. With
/// `maxSeconds` > 0, audio longer than that is refused from the header, before any sample is decoded.
Pcm decodeWav(const uint8_t* data, size_t size, const std::string& name, double maxSeconds = 0);

/// Reads and decodes the WAV file at `path`. Throws AudioError. With `maxSeconds` > 0, a longer file
/// is refused after reading its first 64 KiB, where the headers are.
Pcm readWav(const std::string& path, double maxSeconds = 0);

}  // namespace saguaro::audio
