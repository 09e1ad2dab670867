// The sample formats of WAV files: the fmt chunk's fields and the decoding of one frame, shared by the whole-file
// reader (wav.cpp) and the streaming one (wav_stream.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace saguaro::audio {

/// The fields of the fmt chunk that decoding needs.
struct Format {
  uint16_t tag = 0;  // kFormatPcm or kFormatFloat (extensible resolved to its subformat)
  uint16_t channels = 0;
  uint32_t sampleRate = 0;
  uint16_t blockAlign = 0;
  uint16_t bitsPerSample = 0;
};

/// The bytes of a fmt chunk that are read (WAVE_FORMAT_EXTENSIBLE's).
inline constexpr size_t kLongestFmt = 40;

uint16_t u16(const uint8_t* p);
uint32_t u32(const uint8_t* p);

/// The fmt chunk's `size` bytes at `p`; throws AudioError naming `name` for a format that is not read.
Format parseWavFormat(const uint8_t* p, uint32_t size, const std::string& name);

/// Frame `index` (blockAlign bytes at `p`) mixed down to mono as whisper.load_audio scales it; throws AudioError
/// naming `name` for a non-finite float sample.
float monoSample(const Format& f, const uint8_t* p, size_t index, const std::string& name);

}  // namespace saguaro::audio
