// WAV sample formats: which the reader accepts, and how a frame becomes one mono sample.
#include "wav_format.h"

#include <cmath>
#include <cstring>

#include "saguaro/audio/error.h"
#include "saguaro/audio/wav.h"

namespace saguaro::audio {
namespace {

constexpr uint16_t kFormatPcm = 1;
constexpr uint16_t kFormatFloat = 3;
constexpr uint16_t kFormatExtensible = 0xFFFE;
// KSDATAFORMAT_SUBTYPE_{PCM,IEEE_FLOAT} = {0000000X-0000-0010-8000-00AA00389B71}: the format tag
// in the first two bytes, then this fixed tail.
constexpr uint8_t kSubformatTail[14] = {0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80,
                                        0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71};

/// One sample scaled to [-1, 1): integers divided by 2^(bits-1), as whisper.load_audio does.
double sampleAt(const Format& f, const uint8_t* p) {
  if (f.tag == kFormatFloat) {
    if (f.bitsPerSample == 32) {
      float v;
      std::memcpy(&v, p, 4);
      return v;
    }
    double v;
    std::memcpy(&v, p, 8);
    return v;
  }
  switch (f.bitsPerSample) {
    case 8: return (static_cast<int>(p[0]) - 128) / 128.0;  // 8-bit WAV is unsigned
    case 16: return static_cast<int16_t>(u16(p)) / 32768.0;
    case 24: {
      int32_t v = static_cast<int32_t>(static_cast<uint32_t>(p[0]) << 8 | static_cast<uint32_t>(p[1]) << 16 |
                                       static_cast<uint32_t>(p[2]) << 24) >> 8;
      return v / 8388608.0;
    }
    default: return static_cast<int32_t>(u32(p)) / 2147483648.0;
  }
}

}  // namespace

uint16_t u16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }
uint32_t u32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 | static_cast<uint32_t>(p[2]) << 16 |
         static_cast<uint32_t>(p[3]) << 24;
}

Format parseWavFormat(const uint8_t* p, uint32_t size, const std::string& name) {
  auto fail = [&](const std::string& problem) { throw AudioError(name + ": " + problem); };
  if (size < 16) fail("fmt chunk is too short (" + std::to_string(size) + " bytes, need 16)");
  Format f;
  f.tag = u16(p);
  f.channels = u16(p + 2);
  f.sampleRate = u32(p + 4);
  f.blockAlign = u16(p + 12);
  f.bitsPerSample = u16(p + 14);
  if (f.tag == kFormatExtensible) {
    if (size < kLongestFmt)
      fail("WAVE_FORMAT_EXTENSIBLE fmt chunk is too short (" + std::to_string(size) + " bytes, need " +
           std::to_string(kLongestFmt) + ")");
    const uint8_t* guid = p + 24;
    if (std::memcmp(guid + 2, kSubformatTail, sizeof kSubformatTail) != 0)
      fail("WAVE_FORMAT_EXTENSIBLE has an unknown subformat GUID");
    f.tag = u16(guid);
  }
  if (f.tag != kFormatPcm && f.tag != kFormatFloat)
    fail("has unsupported format tag " + std::to_string(f.tag) + " (only PCM and IEEE float are read)");
  if (f.channels == 0) fail("declares 0 channels");
  if (f.sampleRate == 0) fail("declares a sample rate of 0 Hz");
  if (f.sampleRate < kMinSampleRate || f.sampleRate > kMaxSampleRate)
    fail("sample rate " + std::to_string(f.sampleRate) + " Hz is outside the supported " +
         std::to_string(kMinSampleRate) + ".." + std::to_string(kMaxSampleRate) + " Hz");
  const bool pcmOk = f.tag == kFormatPcm && (f.bitsPerSample == 8 || f.bitsPerSample == 16 ||
                                             f.bitsPerSample == 24 || f.bitsPerSample == 32);
  const bool floatOk = f.tag == kFormatFloat && (f.bitsPerSample == 32 || f.bitsPerSample == 64);
  if (!pcmOk && !floatOk)
    fail("has unsupported " + std::to_string(f.bitsPerSample) + "-bit " + (f.tag == kFormatPcm ? "PCM" : "float") +
         " samples (PCM 8/16/24/32 and float 32/64 are read)");
  const uint32_t frameBytes = static_cast<uint32_t>(f.channels) * (f.bitsPerSample / 8);
  if (f.blockAlign != frameBytes)
    fail("block align " + std::to_string(f.blockAlign) + " does not match " + std::to_string(f.channels) +
         " channels of " + std::to_string(f.bitsPerSample) + " bits (" + std::to_string(frameBytes) + ")");
  return f;
}

float monoSample(const Format& f, const uint8_t* p, size_t index, const std::string& name) {
  const size_t width = f.bitsPerSample / 8;
  double sum = 0.0;
  for (uint16_t c = 0; c < f.channels; ++c, p += width) sum += sampleAt(f, p);
  if (!std::isfinite(sum)) throw AudioError(name + ": has a non-finite float sample at frame " + std::to_string(index));
  return static_cast<float>(sum * (1.0 / f.channels));
}

}  // namespace saguaro::audio
