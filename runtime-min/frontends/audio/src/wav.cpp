// RIFF/WAVE decoding. Every size read from the file is checked against the bytes that are really
// there before it is used, so a lying header produces an error, never a large allocation.
#include "saguaro/audio/wav.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>

namespace saguaro::audio {
namespace {

constexpr uint16_t kFormatPcm = 1;
constexpr uint16_t kFormatFloat = 3;
constexpr uint16_t kFormatExtensible = 0xFFFE;
constexpr size_t kLongestFmt = 40;  // the bytes of a fmt chunk that are read (WAVE_FORMAT_EXTENSIBLE)
// readWav reads this much first when the audio has a length limit, so that a long file is refused
// before it is read.
constexpr size_t kHeaderProbe = 64 * 1024;
// KSDATAFORMAT_SUBTYPE_{PCM,IEEE_FLOAT} = {0000000X-0000-0010-8000-00AA00389B71}: the format tag
// in the first two bytes, then this fixed tail.
constexpr uint8_t kSubformatTail[14] = {0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80,
                                        0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71};

uint16_t u16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }
uint32_t u32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 | static_cast<uint32_t>(p[2]) << 16 |
         static_cast<uint32_t>(p[3]) << 24;
}

std::string chunkName(const uint8_t* p) {
  std::string s;
  for (int i = 0; i < 4; ++i) s += (p[i] >= 0x20 && p[i] < 0x7F) ? static_cast<char>(p[i]) : '?';
  return s;
}

/// The fields of the fmt chunk that decoding needs.
struct Format {
  uint16_t tag = 0;  // kFormatPcm or kFormatFloat (extensible resolved to its subformat)
  uint16_t channels = 0;
  uint32_t sampleRate = 0;
  uint16_t blockAlign = 0;
  uint16_t bitsPerSample = 0;
};

/// Where the parts of a WAV file are.
struct Layout {
  std::optional<Format> format;
  std::optional<size_t> samplesAt;  // offset of the data chunk's body
  size_t sampleBytes = 0;
};

class WavParser {
 public:
  // `available` bytes of a `size`-byte file are at `data`: all of them, or a prefix when readWav only
  // checks the header.
  WavParser(const uint8_t* data, size_t available, size_t size, const std::string& name, double maxSeconds)
      : data_(data), available_(available), size_(size), name_(name), maxSeconds_(maxSeconds) {}

  /// Decodes the samples; the whole file must be in memory.
  Pcm parse() {
    Layout l;
    scan(&l);
    return decode(*l.format, data_ + *l.samplesAt, l.sampleBytes);
  }

  /// Checks every header (and the duration) that lies within the available bytes and throws
  /// AudioError for a bad one. Returns false when a chunk header lies beyond them, so that the
  /// check is incomplete.
  bool scan(Layout* l) const {
    if (size_ == 0) fail("is empty (0 bytes)");
    if (size_ < 12) fail("is too short to be a WAV file (" + std::to_string(size_) + " bytes)");
    if (std::memcmp(data_, "RIFF", 4) != 0) {
      if (std::memcmp(data_, "RF64", 4) == 0) fail("is an RF64 file, which is not supported");
      fail("is not a WAV file (no RIFF header)");
    }
    if (std::memcmp(data_ + 8, "WAVE", 4) != 0) fail("is a RIFF file but not WAVE (form type '" + chunkName(data_ + 8) + "')");
    // The RIFF size is often wrong in files written by streaming tools; the chunks are bounded by
    // the real file size instead.
    size_t pos = 12;
    while (size_ - pos >= 8) {
      if (pos + 8 > available_) return false;
      const uint8_t* head = data_ + pos;
      const uint32_t chunkSize = u32(head + 4);
      const size_t remaining = size_ - pos - 8;
      if (chunkSize > remaining)
        fail("'" + chunkName(head) + "' chunk claims " + std::to_string(chunkSize) + " bytes but only " +
             std::to_string(remaining) + " remain in the file");
      if (std::memcmp(head, "fmt ", 4) == 0 && !l->format) {
        if (pos + 8 + std::min<size_t>(chunkSize, kLongestFmt) > available_) return false;
        l->format = parseFormat(head + 8, chunkSize);
      }
      if (std::memcmp(head, "data", 4) == 0 && !l->samplesAt) {
        l->samplesAt = pos + 8;
        l->sampleBytes = chunkSize;
      }
      // Chunks are word-aligned: an odd-sized chunk is followed by one pad byte.
      pos += 8 + static_cast<size_t>(chunkSize) + (chunkSize & 1);
      if (pos > size_) break;
    }
    if (!l->format) fail("has no fmt chunk");
    if (!l->samplesAt) fail("has no data chunk");
    const double seconds = static_cast<double>(l->sampleBytes / l->format->blockAlign) / l->format->sampleRate;
    if (maxSeconds_ > 0 && seconds > maxSeconds_) fail(tooLong(seconds, maxSeconds_));
    return true;
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const { throw AudioError(name_ + ": " + problem); }

  Format parseFormat(const uint8_t* p, uint32_t size) const {
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

  Pcm decode(const Format& f, const uint8_t* p, size_t bytes) const {
    // A trailing partial frame (a truncated file) is dropped, as ffmpeg does.
    const size_t frames = bytes / f.blockAlign;
    const size_t width = f.bitsPerSample / 8;
    Pcm pcm;
    pcm.sampleRate = f.sampleRate;
    pcm.sourceChannels = f.channels;
    pcm.samples.assign(frames, 0.0f);
    const double mix = 1.0 / f.channels;
    for (size_t i = 0; i < frames; ++i) {
      double sum = 0.0;
      for (uint16_t c = 0; c < f.channels; ++c, p += width) sum += sampleAt(f, p);
      if (!std::isfinite(sum)) fail("has a non-finite float sample at frame " + std::to_string(i));
      pcm.samples[i] = static_cast<float>(sum * mix);
    }
    return pcm;
  }

  /// One sample scaled to [-1, 1): integers divided by 2^(bits-1), as whisper.load_audio does.
  static double sampleAt(const Format& f, const uint8_t* p) {
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

  const uint8_t* data_;
  size_t available_, size_;
  const std::string& name_;
  double maxSeconds_;
};

}  // namespace

Pcm decodeWav(const uint8_t* data, size_t size, const std::string& name, double maxSeconds) {
  return WavParser(data, size, size, name, maxSeconds).parse();
}

Pcm readWav(const std::string& path, double maxSeconds) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw AudioError(path + ": is a directory, not a WAV file");
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw AudioError(path + ": cannot open (" + std::strerror(errno) + ")");
  const std::streamoff end = in.tellg();
  if (end < 0) throw AudioError(path + ": cannot determine the file size");
  const size_t size = static_cast<size_t>(end);
  auto readPrefix = [&](size_t n) {
    std::vector<uint8_t> bytes(n);
    in.seekg(0);
    if (n > 0 && !in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(n)))
      throw AudioError(path + ": read error");
    return bytes;
  };
  if (maxSeconds > 0 && size > kHeaderProbe) {  // refuse too long audio from its header alone
    Layout layout;
    const std::vector<uint8_t> head = readPrefix(kHeaderProbe);
    WavParser(head.data(), head.size(), size, path, maxSeconds).scan(&layout);
  }
  const std::vector<uint8_t> bytes = readPrefix(size);
  return decodeWav(bytes.data(), bytes.size(), path, maxSeconds);
}

}  // namespace saguaro::audio
