// Streaming WAV decoding: a small state machine over the RIFF chunks; only the bytes of an unfinished header or
// frame are held.
#include "saguaro/audio/wav_stream.h"

#include <algorithm>
#include <cstring>
#include <optional>

#include "saguaro/audio/error.h"
#include "wav_format.h"

namespace saguaro::audio {

struct WavStream::State {
  std::vector<uint8_t> held;   // bytes not yet consumed: a header in progress or a partial frame
  bool riffRead = false;
  std::optional<Format> format;
  size_t skip = 0;             // bytes of a chunk before the data chunk still to pass over
  bool inData = false, dataToEnd = false;
  uint64_t dataLeft = 0;       // bytes of the data chunk still to come (unless dataToEnd)
  size_t frames = 0;
  bool done = false;           // the data chunk has ended: the rest of the input is not audio
};

WavStream::WavStream(std::string name) : name_(std::move(name)), state_(std::make_unique<State>()) {}
WavStream::~WavStream() = default;

uint32_t WavStream::sampleRate() const { return state_->format ? state_->format->sampleRate : 0; }

void WavStream::push(const uint8_t* bytes, size_t n, std::vector<float>* samples) {
  State& s = *state_;
  if (s.done) return;
  auto fail = [&](const std::string& problem) { throw AudioError(name_ + ": " + problem); };
  s.held.insert(s.held.end(), bytes, bytes + n);
  size_t at = 0;
  for (;;) {
    const size_t have = s.held.size() - at;
    const uint8_t* p = s.held.data() + at;
    if (!s.riffRead) {
      if (have < 12) break;
      if (std::memcmp(p, "RIFF", 4) != 0) fail("is not a WAV file (no RIFF header)");
      if (std::memcmp(p + 8, "WAVE", 4) != 0) fail("is a RIFF file but not WAVE");
      s.riffRead = true, at += 12;
    } else if (s.skip > 0) {
      const size_t passed = std::min(s.skip, have);
      s.skip -= passed, at += passed;
      if (s.skip > 0) break;
    } else if (!s.inData) {
      if (have < 8) break;
      const uint32_t size = u32(p + 4);
      if (std::memcmp(p, "data", 4) == 0) {
        if (!s.format) fail("has no fmt chunk before its data chunk (a stream is read in order)");
        s.inData = true, s.dataToEnd = size == 0 || size == 0xFFFFFFFFu, s.dataLeft = size, at += 8;
      } else if (std::memcmp(p, "fmt ", 4) == 0 && !s.format) {
        const size_t body = std::min<size_t>(size, kLongestFmt);
        if (have < 8 + body) break;
        s.format = parseWavFormat(p + 8, size, name_);
        at += 8 + body, s.skip = size - body + (size & 1);
      } else {
        at += 8, s.skip = static_cast<size_t>(size) + (size & 1);  // word-aligned: odd chunks have a pad byte
      }
    } else {
      const Format& f = *s.format;
      size_t usable = have;
      if (!s.dataToEnd) usable = static_cast<size_t>(std::min<uint64_t>(usable, s.dataLeft));
      const size_t whole = usable / f.blockAlign;
      for (size_t i = 0; i < whole; ++i) samples->push_back(monoSample(f, p + i * f.blockAlign, s.frames++, name_));
      at += whole * f.blockAlign;
      if (!s.dataToEnd) s.dataLeft -= whole * f.blockAlign;
      if (!s.dataToEnd && s.dataLeft < f.blockAlign) {  // the chunk is done: whatever follows is not audio
        s.held.clear();
        s.done = true;
        return;
      }
      break;
    }
  }
  s.held.erase(s.held.begin(), s.held.begin() + static_cast<long>(at));
}

void WavStream::finish() const {
  const State& s = *state_;
  if (!s.riffRead && s.held.empty()) throw AudioError(name_ + ": is empty (0 bytes)");
  if (!s.riffRead)
    throw AudioError(name_ + ": is too short to be a WAV file (" + std::to_string(s.held.size()) + " bytes)");
  if (!s.format) throw AudioError(name_ + ": has no fmt chunk");
  if (!s.inData) throw AudioError(name_ + ": has no data chunk");
}

}  // namespace saguaro::audio
