#include "audio_stream.h"

#include <string>

namespace saguaro_node {

// saguaro_audio_end on a libuv worker thread: the tower runs there, and the model counts as busy meanwhile.
class EndWorker : public Napi::AsyncWorker {
 public:
  EndWorker(Napi::Env env, AudioStream* stream, Napi::Object stream_object)
      : Napi::AsyncWorker(env, "saguaro.audioEnd"),
        deferred_(Napi::Promise::Deferred::New(env)),
        stream_(stream),
        stream_object_(Napi::Persistent(stream_object)) {
    stream_->model_->busy_ = true;
  }

  Napi::Promise Promise() const { return deferred_.Promise(); }

 protected:
  void Execute() override {
    const CApi* api = stream_->model_->api_;
    tokens_ = api->audio_end(stream_->handle_);
    if (tokens_ < 0) error_ = api->last_error();  // per thread: read on the thread that made the call
  }

  void OnOK() override {
    stream_->model_->busy_ = false;
    if (tokens_ < 0)
      deferred_.Reject(Napi::Error::New(Env(), error_).Value());
    else
      deferred_.Resolve(Napi::Number::New(Env(), tokens_));
  }

 private:
  Napi::Promise::Deferred deferred_;
  AudioStream* stream_;
  Napi::ObjectReference stream_object_;  // alive until the call ends
  int tokens_ = -1;
  std::string error_;
};

Napi::Function AudioStream::Define(Napi::Env env) {
  return DefineClass(env, "AudioStream",
                     {InstanceMethod("id", &AudioStream::Id), InstanceMethod("push", &AudioStream::Push),
                      InstanceMethod("pushInt16", &AudioStream::PushInt16), InstanceMethod("end", &AudioStream::End),
                      InstanceMethod("destroy", &AudioStream::Destroy)});
}

AudioStream::AudioStream(const Napi::CallbackInfo& info) : Napi::ObjectWrap<AudioStream>(info) {
  Napi::Env env = info.Env();
  if (info.Length() != 1 || !info[0].IsObject()) throw Napi::TypeError::New(env, "AudioStream(model)");
  Model* model = Napi::ObjectWrap<Model>::Unwrap(info[0].As<Napi::Object>());
  if (model == nullptr || model->handle_ == nullptr) throw Napi::Error::New(env, "the model was destroyed");
  if (model->busy_) throw Napi::Error::New(env, "the model is answering a call");
  handle_ = model->api_->audio_begin(model->handle_);
  if (handle_ == nullptr) throw Napi::Error::New(env, model->api_->last_error());
  model_ = model;
  model_object_ = Napi::Persistent(info[0].As<Napi::Object>());
}

AudioStream::~AudioStream() {
  if (handle_ != nullptr) model_->api_->audio_destroy(handle_);
}

Model* AudioStream::Ready(Napi::Env env, const char* what) {
  if (handle_ == nullptr) throw Napi::Error::New(env, std::string(what) + ": the audio stream was destroyed");
  if (model_->handle_ == nullptr) throw Napi::Error::New(env, std::string(what) + ": the model was destroyed");
  if (model_->busy_) throw Napi::Error::New(env, std::string(what) + ": the model is answering a call");
  return model_;
}

Napi::Value AudioStream::Id(const Napi::CallbackInfo& info) {
  Ready(info.Env(), "id");
  return Napi::Number::New(info.Env(), static_cast<double>(model_->api_->audio_id(handle_)));
}

template <typename Sample>
void AudioStream::PushSamples(const Napi::CallbackInfo& info, const char* what, const char* usage,
                              napi_typedarray_type type, int (*CApi::*push)(saguaro_audio*, const Sample*, size_t)) {
  Model* model = Ready(info.Env(), what);
  if (info.Length() != 1 || !info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != type)
    throw Napi::TypeError::New(info.Env(), usage);
  Napi::TypedArrayOf<Sample> samples = info[0].As<Napi::TypedArrayOf<Sample>>();
  if ((model->api_->*push)(handle_, samples.Data(), samples.ElementLength()) != 0)
    throw Napi::Error::New(info.Env(), model->api_->last_error());
}

void AudioStream::Push(const Napi::CallbackInfo& info) {
  PushSamples(info, "push", "push(samples): a Float32Array", napi_float32_array, &CApi::audio_push);
}

void AudioStream::PushInt16(const Napi::CallbackInfo& info) {
  PushSamples(info, "pushInt16", "pushInt16(pcm): an Int16Array", napi_int16_array, &CApi::audio_push_int16);
}

Napi::Value AudioStream::End(const Napi::CallbackInfo& info) {
  Ready(info.Env(), "end");
  auto* worker = new EndWorker(info.Env(), this, info.This().As<Napi::Object>());
  worker->Queue();
  return worker->Promise();
}

void AudioStream::Destroy(const Napi::CallbackInfo& info) {
  if (handle_ == nullptr) return;
  Ready(info.Env(), "destroy");
  model_->api_->audio_destroy(handle_);
  handle_ = nullptr;
}

}  // namespace saguaro_node
