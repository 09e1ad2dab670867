// The audio front-end is linked into runtimes that carry it (SAGUARO_WITH_AUDIO: the project's, and a bundle's whose
// model has an audio tower); without it a stream is refused with a reason. The front-end throws AudioError; every
// call catches it here and returns the message.
#include "saguaro/audio_stream.h"

#if SAGUARO_WITH_AUDIO
#include <cstddef>
#include <exception>
#include <utility>

#include "saguaro/audio/log_mel_stream.h"
#endif

namespace saguaro {

#if SAGUARO_WITH_AUDIO
struct AudioStream::Impl {
  Engine& engine;
  audio::LogMelStream mel{audio::LogMelConfig::gemma4()};
  std::vector<float> frames;  // the valid frames not yet through the tower, time-major
  size_t encoded = 0;         // the frames through the tower: a whole number of soft tokens until the end
  std::vector<float> state;   // the tower's rings of the frames before the next step (EncoderSpec::state_bytes)
  std::vector<float> soft;    // the soft tokens so far
  bool finished = false;

  AudioStepArena arena;       // the steps' working memory, mapped by the first step

  explicit Impl(Engine& e) : engine(e), state(e.spec().audio->state_bytes / sizeof(float)) {}

  /// Runs the tower's step over the frames that make whole soft tokens (at the end: all of them, and at least one
  /// frame in the clip), so at the end of the clip only the last token's frames remain.
  bool step(bool last, std::string* err) {
    const size_t mel = static_cast<size_t>(engine.spec().audio->row_width),
                 token = static_cast<size_t>(engine.spec().audio->rows_per_token);
    const size_t n = last ? frames.size() / mel : frames.size() / mel / token * token;
    if (n == 0 && !(last && encoded == 0)) return true;
    if (!engine.encode_audio_step(frames.data(), n, encoded, state.data(), &soft, err, &arena)) return false;
    frames.erase(frames.begin(), frames.begin() + static_cast<std::ptrdiff_t>(n * mel));
    encoded += n;
    return true;
  }

  /// Runs `body`, turning a thrown error into false + err.
  template <typename Body>
  bool guarded(std::string* err, Body body) {
    if (finished) return *err = "the audio stream has ended", false;
    try {
      body();
      return true;
    } catch (const std::exception& e) {
      return *err = e.what(), false;
    }
  }
};

std::unique_ptr<AudioStream> AudioStream::open(Engine& engine, std::string* err) {
  if (!engine.spec().audio) return *err = "the model has no audio tower", nullptr;
  return std::unique_ptr<AudioStream>(new AudioStream(std::make_unique<Impl>(engine)));
}

bool AudioStream::push(const float* pcm, size_t n, std::string* err) {
  return impl_->guarded(err, [&] { impl_->mel.push(pcm, n, &impl_->frames); }) && impl_->step(false, err);
}

bool AudioStream::push_int16(const int16_t* pcm, size_t n, std::string* err) {
  std::vector<float> x(n);
  // As a 16-bit WAV's samples are read (double division, then float), so the frames match the file's.
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>(pcm[i] / 32768.0);
  return push(x.data(), n, err);
}

std::vector<float> AudioStream::finish(std::string* err) {
  if (!impl_->guarded(err, [&] { impl_->mel.finish(); })) return {};
  impl_->finished = true;
  if (!impl_->step(true, err)) return {};
  return std::move(impl_->soft);
}

size_t AudioStream::samples() const { return impl_->mel.samples(); }
size_t AudioStream::frames() const { return impl_->mel.frames(); }
#else
struct AudioStream::Impl {};

std::unique_ptr<AudioStream> AudioStream::open(Engine& engine, std::string* err) {
  if (!engine.spec().audio) return *err = "the model has no audio tower", nullptr;
  return *err = "this runtime was built without the audio front-end", nullptr;
}
bool AudioStream::push(const float*, size_t, std::string*) { return false; }
bool AudioStream::push_int16(const int16_t*, size_t, std::string*) { return false; }
std::vector<float> AudioStream::finish(std::string*) { return {}; }
size_t AudioStream::samples() const { return 0; }
size_t AudioStream::frames() const { return 0; }
#endif

AudioStream::AudioStream(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
AudioStream::~AudioStream() = default;

}  // namespace saguaro
