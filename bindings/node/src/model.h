// A model opened from a bundle (the native half of lib/model.js): saguaro_init on construction, saguaro_complete on
// a libuv worker thread, saguaro_destroy on destroy() or when the object is collected.
#ifndef SAGUARO_NODE_MODEL_H_
#define SAGUARO_NODE_MODEL_H_

#include <napi.h>

#include "library.h"

namespace saguaro_node {

class Model : public Napi::ObjectWrap<Model> {
 public:
  // The class `Model(libraryPath, bundlePath)` with complete(messagesJson, optionsJson | null, bufferBytes,
  // onToken | null) -> Promise<string> and destroy().
  static Napi::Function Define(Napi::Env env);

  explicit Model(const Napi::CallbackInfo& info);
  ~Model() override;

 private:
  friend class CompleteWorker;

  Napi::Value Complete(const Napi::CallbackInfo& info);
  void Destroy(const Napi::CallbackInfo& info);

  const CApi* api_ = nullptr;
  saguaro_model* handle_ = nullptr;
  // One call at a time: lib/model.js queues the calls; this refuses what bypasses the queue, since the engine
  // holds one conversation's state and saguaro_destroy must not free it under a running call.
  bool busy_ = false;
};

}  // namespace saguaro_node

#endif  // SAGUARO_NODE_MODEL_H_
