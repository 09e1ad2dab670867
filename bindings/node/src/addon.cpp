// The addon `saguaro.node`: the classes Model (model.h) and AudioStream (audio_stream.h). lib/ is the package's API
// on top of them.
#include <napi.h>

#include "audio_stream.h"
#include "model.h"

namespace {

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("Model", saguaro_node::Model::Define(env));
  exports.Set("AudioStream", saguaro_node::AudioStream::Define(env));
  return exports;
}

}  // namespace

NODE_API_MODULE(saguaro, Init)
