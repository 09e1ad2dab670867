// A WAV file read as its bytes arrive (a pipe): the headers first, then the samples of every whole frame as soon as
// its bytes are in, mixed down to mono as readWav does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace saguaro::audio {

class WavStream {
 public:
  /// `name` says where the bytes come from in errors (e.g. "standard input").
  explicit WavStream(std::string name);
  ~WavStream();

  /// Takes the next `n` bytes and appends the mono samples they complete to `samples`. Throws AudioError for a
  /// header readWav refuses. A data chunk whose size is 0 or 0xFFFFFFFF (a streaming writer's placeholders) runs
  /// to the end of the input; otherwise bytes past it are ignored.
  void push(const uint8_t* bytes, size_t n, std::vector<float>* samples);
  /// The end of the input: throws AudioError when it ended before the data chunk began.
  void finish() const;
  /// The sample rate the fmt chunk declares; 0 before it has arrived.
  uint32_t sampleRate() const;

 private:
  struct State;
  std::string name_;
  std::unique_ptr<State> state_;
};

}  // namespace saguaro::audio
