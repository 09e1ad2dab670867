// The C API's registry of audio streams (capi_audio_streams.h). One mutex guards it: streams of different models
// begin, end and are named from different threads.
#include "capi_audio_streams.h"

#include <map>
#include <mutex>
#include <utility>

namespace saguaro {
namespace {

struct Entry {
  const saguaro_model* model;  // null once the model was destroyed
  bool ended = false;
  SoftTokens soft_tokens;  // set when the stream ended with them
};

struct Registry {
  std::mutex mutex;
  std::map<int64_t, Entry> streams;  // the streams not destroyed
  int64_t next_id = 1;
};

Registry& registry() {
  static Registry r;
  return r;
}

// Why stream `id` cannot be used by `model` ("" when it can), with the registry locked.
std::string refusal(const Registry& r, const saguaro_model* model, int64_t id) {
  const std::string name = "audio stream " + std::to_string(id);
  if (id >= r.next_id) return name + " was never begun (saguaro_audio_id gives a stream's id)";
  const auto it = r.streams.find(id);
  if (it == r.streams.end()) return name + " was destroyed";
  const Entry& e = it->second;
  if (e.model != model) return name + " belongs to another model";
  if (!e.ended) return name + " has not ended (saguaro_audio_end computes its soft tokens)";
  if (!e.soft_tokens) return name + " ended without soft tokens";
  return "";
}

}  // namespace

int64_t audio_stream_begun(const saguaro_model* model) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.streams[r.next_id] = Entry{model};
  return r.next_id++;
}

void audio_stream_ended(int64_t id, SoftTokens soft_tokens) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  Entry& e = r.streams.at(id);
  e.ended = true;
  e.soft_tokens = std::move(soft_tokens);
}

void audio_stream_destroyed(int64_t id) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.streams.erase(id);
}

void audio_streams_model_destroyed(const saguaro_model* model) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (auto& [id, e] : r.streams)
    if (e.model == model) e.model = nullptr;
}

bool resolve_audio_streams(const saguaro_model* model, const Engine& engine, const std::vector<AudioRef>& refs,
                           std::vector<AudioSource>* sources, std::string* err) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (size_t i = 0; i < refs.size(); ++i) {
    if (refs[i].stream == 0) continue;
    std::string problem = engine.spec().audio ? refusal(r, model, refs[i].stream) : "the model has no audio tower";
    if (!problem.empty()) return *err = "messages_json: " + refs[i].at + ": " + problem, false;
    (*sources)[i].streamed = r.streams.at(refs[i].stream).soft_tokens;
  }
  return true;
}

}  // namespace saguaro
