// RIFF/WAVE decoding. Every size read from the file is checked against the bytes that are really
// there before it is used, so a lying header produces an error, never a large allocation.
#include "saguaro/audio/wav.h"

#include "wav_format.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>

namespace saguaro::audio {
namespace {

// readWav reads this much first when the audio has a length limit, so that a long file is refused
// before it is read.
constexpr size_t kHeaderProbe = 64 * 1024;
std::string chunkName(const uint8_t* p) {
  std::string s;
  for (int i = 0; i < 4; ++i) s += (p[i] >= 0x20 && p[i] < 0x7F) ? static_cast<char>(p[i]) : '?';
  return s;
}

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
        l->format = parseWavFormat(head + 8, chunkSize, name_);
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

  Pcm decode(const Format& f, const uint8_t* p, size_t bytes) const {
    // A trailing partial frame (a truncated file) is dropped, as ffmpeg does.
    const size_t frames = bytes / f.blockAlign;
    Pcm pcm;
    pcm.sampleRate = f.sampleRate;
    pcm.sourceChannels = f.channels;
    pcm.samples.assign(frames, 0.0f);
    for (size_t i = 0; i < frames; ++i, p += f.blockAlign) pcm.samples[i] = monoSample(f, p, i, name_);
    return pcm;
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
