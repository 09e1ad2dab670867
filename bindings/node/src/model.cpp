#include "model.h"

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace saguaro_node {
namespace {

// One piece of the answer, carried from the worker thread to the JS thread.
struct Piece {
  std::string text;
  uint32_t token_id = 0;
};

}  // namespace

// saguaro_complete on a libuv worker thread; the pieces reach onToken on the JS thread in order, and the promise
// settles after the last of them (AsyncProgressQueueWorker drains its queue before OnOK / OnError).
class CompleteWorker : public Napi::AsyncProgressQueueWorker<Piece> {
 public:
  CompleteWorker(Napi::Env env, Model* model, Napi::Object model_object, std::string messages_json,
                 std::string options_json, bool has_options, size_t buffer_bytes, Napi::Function on_token)
      : Napi::AsyncProgressQueueWorker<Piece>(env, "saguaro.complete"),
        deferred_(Napi::Promise::Deferred::New(env)),
        model_(model),
        model_object_(Napi::Persistent(model_object)),  // alive until the call ends
        messages_json_(std::move(messages_json)),
        options_json_(std::move(options_json)),
        has_options_(has_options),
        out_(buffer_bytes) {
    if (!on_token.IsEmpty()) on_token_ = Napi::Persistent(on_token);
    model_->busy_ = true;
  }

  Napi::Promise Promise() const { return deferred_.Promise(); }

 protected:
  void Execute(const ExecutionProgress& progress) override {
    const CApi* api = model_->api_;
    progress_ = &progress;
    // The token callback always runs: it passes on a stop() that came before the generation began.
    int n = api->complete(model_->handle_, messages_json_.c_str(), has_options_ ? options_json_.c_str() : nullptr,
                          out_.data(), out_.size(), &CompleteWorker::OnToken, this);
    progress_ = nullptr;
    if (n < 0) {
      error_ = api->last_error();  // per thread: read here, on the thread that made the call
      failed_ = true;
    } else {
      length_ = static_cast<size_t>(n);
    }
  }

  void OnProgress(const Piece* pieces, size_t count) override {
    Napi::Env env = Env();
    Napi::HandleScope scope(env);
    for (size_t i = 0; i < count && !stopped_.load(); ++i) {
      Napi::Value more = on_token_.Call({Napi::String::New(env, pieces[i].text),
                                         Napi::Number::New(env, pieces[i].token_id)});
      // lib/model.js's callback returns false once the app's callback threw: no more pieces are sent.
      if (more.IsBoolean() && !more.As<Napi::Boolean>().Value()) stopped_.store(true);
    }
  }

  void OnOK() override {
    Napi::Env env = Env();
    model_->busy_ = false;
    model_->stop_requested_.store(false);
    if (failed_) {
      Napi::Error error = Napi::Error::New(env, error_);
      // The error response the C API wrote, when it fit (lib/model.js parses it).
      error.Set("responseJson", Napi::String::New(env, std::string(out_.data())));
      deferred_.Reject(error.Value());
    } else {
      deferred_.Resolve(Napi::String::New(env, out_.data(), length_));
    }
  }

  void OnError(const Napi::Error& error) override {
    model_->busy_ = false;
    model_->stop_requested_.store(false);
    deferred_.Reject(error.Value());
  }

 private:
  static void OnToken(const char* token, uint32_t token_id, void* user_data) {
    auto* self = static_cast<CompleteWorker*>(user_data);
    if (self->model_->stop_requested_.load()) self->model_->api_->stop(self->model_->handle_);
    if (self->on_token_.IsEmpty() || self->stopped_.load()) return;
    Piece piece{token, token_id};
    self->progress_->Send(&piece, 1);
  }

  Napi::Promise::Deferred deferred_;
  Model* model_;
  Napi::ObjectReference model_object_;
  Napi::FunctionReference on_token_;
  std::string messages_json_, options_json_;
  bool has_options_;
  std::vector<char> out_;
  const ExecutionProgress* progress_ = nullptr;
  std::atomic<bool> stopped_{false};
  bool failed_ = false;
  std::string error_;
  size_t length_ = 0;
};

Napi::Function Model::Define(Napi::Env env) {
  return DefineClass(env, "Model",
                     {InstanceMethod("complete", &Model::Complete), InstanceMethod("stop", &Model::Stop),
                      InstanceMethod("destroy", &Model::Destroy)});
}

Model::Model(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Model>(info) {
  Napi::Env env = info.Env();
  if (info.Length() != 2 || !info[0].IsString() || !info[1].IsString())
    throw Napi::TypeError::New(env, "Model(libraryPath, bundlePath): two strings");
  std::string error;
  api_ = load_library(info[0].As<Napi::String>(), &error);
  if (api_ == nullptr) throw Napi::Error::New(env, error);
  handle_ = api_->init(info[1].As<Napi::String>().Utf8Value().c_str());
  if (handle_ == nullptr) throw Napi::Error::New(env, api_->last_error());
}

Model::~Model() {
  // A model collected or torn down with the environment; never under a running call (the worker keeps it alive).
  if (handle_ != nullptr && !busy_) api_->destroy(handle_);
}

Napi::Value Model::Complete(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 4 || !info[0].IsString() || !(info[1].IsString() || info[1].IsNull()) ||
      !info[2].IsNumber() || !(info[3].IsFunction() || info[3].IsNull()))
    throw Napi::TypeError::New(env, "complete(messagesJson, optionsJson | null, bufferBytes, onToken | null)");
  if (handle_ == nullptr) throw Napi::Error::New(env, "the model was destroyed");
  if (busy_) throw Napi::Error::New(env, "the model is answering another call");
  double bytes = info[2].As<Napi::Number>().DoubleValue();
  if (!(bytes >= 1 && bytes <= double(SIZE_MAX)))
    throw Napi::RangeError::New(env, "bufferBytes: a positive number of bytes");
  auto* worker = new CompleteWorker(env, this, info.This().As<Napi::Object>(), info[0].As<Napi::String>(),
                                    info[1].IsNull() ? std::string() : info[1].As<Napi::String>().Utf8Value(),
                                    !info[1].IsNull(), static_cast<size_t>(bytes),
                                    info[3].IsNull() ? Napi::Function() : info[3].As<Napi::Function>());
  worker->Queue();
  return worker->Promise();
}

void Model::Stop(const Napi::CallbackInfo&) {
  if (handle_ == nullptr) return;
  stop_requested_.store(true);
  api_->stop(handle_);  // only a flag: safe beside the running call
}

void Model::Destroy(const Napi::CallbackInfo& info) {
  if (busy_) throw Napi::Error::New(info.Env(), "the model is answering a call");
  if (handle_ != nullptr) api_->destroy(handle_);
  handle_ = nullptr;
}

}  // namespace saguaro_node
