// A model opened from a bundle (the native half of lib/model.js): saguaro_init on construction, saguaro_complete on
// a libuv worker thread, saguaro_stop on stop(), saguaro_destroy on destroy() or when the object is collected.
#ifndef SAGUARO_NODE_MODEL_H_
#define SAGUARO_NODE_MODEL_H_

#include <napi.h>

#include <atomic>

#include "library.h"

namespace saguaro_node {

class Model : public Napi::ObjectWrap<Model> {
 public:
  // The class `Model(libraryPath, bundlePath)` with complete(messagesJson, optionsJson | null, bufferBytes,
  // onToken | null) -> Promise<string>, stop() and destroy().
  static Napi::Function Define(Napi::Env env);

  explicit Model(const Napi::CallbackInfo& info);
  ~Model() override;

 private:
  friend class CompleteWorker;
  friend class AudioStream;
  friend class EndWorker;

  Napi::Value Complete(const Napi::CallbackInfo& info);
  void Stop(const Napi::CallbackInfo& info);
  void Destroy(const Napi::CallbackInfo& info);

  const CApi* api_ = nullptr;
  saguaro_model* handle_ = nullptr;
  // One call at a time: lib/model.js queues the calls; this refuses what bypasses the queue, since the engine
  // holds one conversation's state and saguaro_destroy must not free it under a running call.
  bool busy_ = false;
  // stop() asked to end the running call or, when lib/model.js has not started it on the worker yet, the next one;
  // cleared when a call ends. saguaro_complete drops a stop asked before it began, so the worker's token callback
  // asks again (saguaro_stop) while this is set.
  std::atomic<bool> stop_requested_{false};
};

}  // namespace saguaro_node

#endif  // SAGUARO_NODE_MODEL_H_
