// A clip streamed into a model's audio tower (the native half of lib/audio_stream.js): saguaro_audio_begin on
// construction, push / pushInt16 on the JS thread (they only make log-mel frames), end() on a libuv worker thread
// (it runs the tower), saguaro_audio_destroy on destroy() or when the object is collected.
#ifndef SAGUARO_NODE_AUDIO_STREAM_H_
#define SAGUARO_NODE_AUDIO_STREAM_H_

#include <napi.h>

#include "library.h"
#include "model.h"

namespace saguaro_node {

class AudioStream : public Napi::ObjectWrap<AudioStream> {
 public:
  // The class `AudioStream(model)` with id() -> number, push(Float32Array), pushInt16(Int16Array),
  // end() -> Promise<number> and destroy().
  static Napi::Function Define(Napi::Env env);

  explicit AudioStream(const Napi::CallbackInfo& info);
  ~AudioStream() override;

 private:
  friend class EndWorker;

  Napi::Value Id(const Napi::CallbackInfo& info);
  void Push(const Napi::CallbackInfo& info);
  void PushInt16(const Napi::CallbackInfo& info);
  // push / pushInt16 (`what`): a typed array of `Sample` (`type`) through the C API's `push`; `usage` is the
  // TypeError's message.
  template <typename Sample>
  void PushSamples(const Napi::CallbackInfo& info, const char* what, const char* usage, napi_typedarray_type type,
                   int (*CApi::*push)(saguaro_audio*, const Sample*, size_t));
  Napi::Value End(const Napi::CallbackInfo& info);
  void Destroy(const Napi::CallbackInfo& info);
  // The model, checked free for a call on the stream (the C API's calls on a stream must not overlap its model's).
  Model* Ready(Napi::Env env, const char* what);

  Napi::ObjectReference model_object_;  // the model outlives its streams
  Model* model_ = nullptr;
  saguaro_audio* handle_ = nullptr;
};

}  // namespace saguaro_node

#endif  // SAGUARO_NODE_AUDIO_STREAM_H_
