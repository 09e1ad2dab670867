// C API of streamed audio (saguaro_audio_*): a handle over saguaro::AudioStream and, once ended, its soft tokens;
// each handle is in the registry of capi_audio_streams.h under its id, which a message of saguaro_complete names.
#include <algorithm>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "capi_audio_streams.h"
#include "capi_model.h"
#include "saguaro/audio_stream.h"
#include "saguaro/saguaro.h"

struct saguaro_audio {
  std::unique_ptr<saguaro::AudioStream> stream;
  size_t width;  // floats per soft token: the decoder's width
  int64_t id;    // in the registry
  saguaro::SoftTokens soft_tokens;  // set when the stream ended with them
  bool ended = false;
};

namespace {

/// Runs `body` so that no exception leaves the C API; failures set the last error, prefixed with `fn`.
template <class T, class F>
T guarded(const char* fn, T failed, F body) {
  std::string& last = saguaro::capi_last_error();
  try {
    std::string err;
    T r = body(&err);
    last = r == failed ? std::string(fn) + ": " + err : std::string();
    return r;
  } catch (const std::exception& e) {
    last = std::string(fn) + ": " + e.what();
  } catch (...) {
    last = std::string(fn) + ": unknown error";
  }
  return failed;
}

template <class Sample>
int push(const char* fn, saguaro_audio_t audio, const Sample* pcm, size_t n) {
  return guarded(fn, -1, [&](std::string* err) {
    if (!audio || (!pcm && n > 0)) return *err = "NULL argument", -1;
    if (audio->ended) return *err = "the audio stream has ended", -1;
    bool ok;
    if constexpr (sizeof(Sample) == 2)
      ok = audio->stream->push_int16(pcm, n, err);
    else
      ok = audio->stream->push(pcm, n, err);
    return ok ? 0 : -1;
  });
}

}  // namespace

extern "C" saguaro_audio_t saguaro_audio_begin(saguaro_model_t model) {
  return guarded("saguaro_audio_begin", static_cast<saguaro_audio_t>(nullptr), [&](std::string* err) {
    if (!model) return *err = "model is NULL", static_cast<saguaro_audio_t>(nullptr);
    saguaro::Engine& engine = saguaro::capi_engine(model);
    auto stream = saguaro::AudioStream::open(engine, err);
    if (!stream) return static_cast<saguaro_audio_t>(nullptr);
    const size_t width = static_cast<size_t>(engine.spec().audio->out_dim);
    return new saguaro_audio{std::move(stream), width, saguaro::audio_stream_begun(model), nullptr, false};
  });
}

extern "C" int saguaro_audio_push(saguaro_audio_t audio, const float* pcm, size_t n) {
  return push("saguaro_audio_push", audio, pcm, n);
}

extern "C" int saguaro_audio_push_int16(saguaro_audio_t audio, const int16_t* pcm, size_t n) {
  return push("saguaro_audio_push_int16", audio, pcm, n);
}

extern "C" int saguaro_audio_end(saguaro_audio_t audio) {
  return guarded("saguaro_audio_end", -1, [&](std::string* err) {
    if (!audio) return *err = "audio is NULL", -1;
    if (audio->ended) return *err = "the audio stream has ended", -1;
    audio->ended = true;
    saguaro::audio_stream_ended(audio->id, nullptr);  // without soft tokens until finish() returns them
    std::vector<float> soft = audio->stream->finish(err);
    if (soft.empty()) return -1;
    audio->soft_tokens = std::make_shared<const std::vector<float>>(std::move(soft));
    saguaro::audio_stream_ended(audio->id, audio->soft_tokens);
    return static_cast<int>(audio->soft_tokens->size() / audio->width);
  });
}

extern "C" long saguaro_audio_soft_tokens(saguaro_audio_t audio, float* out, size_t out_floats) {
  return guarded("saguaro_audio_soft_tokens", -1L, [&](std::string* err) {
    if (!audio) return *err = "audio is NULL", -1L;
    if (!audio->soft_tokens) return *err = "the audio stream has not ended with soft tokens", -1L;
    const size_t n = audio->soft_tokens->size();
    if (!out) return static_cast<long>(n);
    if (out_floats < n)
      return *err = std::to_string(n) + " floats do not fit in " + std::to_string(out_floats), -1L;
    std::copy(audio->soft_tokens->begin(), audio->soft_tokens->end(), out);
    return static_cast<long>(n);
  });
}

extern "C" long saguaro_audio_id(saguaro_audio_t audio) {
  return guarded("saguaro_audio_id", -1L, [&](std::string* err) {
    if (!audio) return *err = "audio is NULL", -1L;
    return static_cast<long>(audio->id);
  });
}

extern "C" void saguaro_audio_destroy(saguaro_audio_t audio) {
  if (audio) saguaro::audio_stream_destroyed(audio->id);
  delete audio;
}
