// A clip streamed into an engine's audio tower: 16 kHz mono PCM pushed in pieces as it arrives, Gemma 4's log-mel
// frames made as soon as their samples are in (bit-identical to the whole clip's), and each soft token made by the
// tower's step (Engine::encode_audio_step) as soon as its frames are, so at the end only the last token's remain.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "saguaro/engine.h"

namespace saguaro {

class AudioStream {
 public:
  /// A stream into `engine`'s audio tower (the engine must outlive it); null + err when the model has no audio
  /// tower or this runtime was built without the audio front-end.
  static std::unique_ptr<AudioStream> open(Engine& engine, std::string* err);
  ~AudioStream();
  AudioStream(const AudioStream&) = delete;
  AudioStream& operator=(const AudioStream&) = delete;

  /// The next `n` samples, 16 kHz mono in [-1, 1]. False + err past 30 s (the front-end's limit) or after finish().
  bool push(const float* pcm, size_t n, std::string* err);
  /// The same from 16-bit PCM, scaled by 1 / 32768 as a WAV file's samples are.
  bool push_int16(const int16_t* pcm, size_t n, std::string* err);
  /// Ends the clip and returns its soft tokens (ceil(frames / 4) × dim floats, bit-identical to Engine::encode_audio
  /// of the frames); empty + err for no samples or too few for one mel frame. The stream then takes nothing more.
  std::vector<float> finish(std::string* err);

  size_t samples() const;
  /// Mel frames made so far.
  size_t frames() const;

 private:
  struct Impl;
  explicit AudioStream(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace saguaro
