// The addon `saguaro.node`: the class Model (model.h). lib/ is the package's API on top of it.
#include <napi.h>

#include "model.h"

namespace {

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("Model", saguaro_node::Model::Define(env));
  return exports;
}

}  // namespace

NODE_API_MODULE(saguaro, Init)
