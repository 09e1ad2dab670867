// The C API's registry of audio streams (capi_audio_streams.h). One lock guards it: streams of different models
// begin, end and are named from different threads.
#include "capi_audio_streams.h"

#include <atomic>
#include <map>
#include <utility>

namespace saguaro {
namespace {

struct Entry {
  const saguaro_model* model;  // null once the model was destroyed
  bool ended = false;
  SoftTokens soft_tokens;  // set when the stream ended with them
};

struct Registry {
  // A spin lock, not std::mutex: a firmware build (--threads 0, docs/firmware.md) links no threads library, and
  // what it guards is a map lookup or insertion.
  std::atomic_flag busy = ATOMIC_FLAG_INIT;
  std::map<int64_t, Entry> streams;  // the streams not destroyed
  int64_t next_id = 1;
};

// The registry, held for the lifetime of this object.
class Locked {
 public:
  Locked() : r_(instance()) {
    while (r_.busy.test_and_set(std::memory_order_acquire)) {
    }
  }
  ~Locked() { r_.busy.clear(std::memory_order_release); }
  Locked(const Locked&) = delete;
  Locked& operator=(const Locked&) = delete;
  Registry* operator->() { return &r_; }
  Registry& operator*() { return r_; }

 private:
  static Registry& instance() {
    static Registry r;
    return r;
  }
  Registry& r_;
};

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
  Locked r;
  r->streams[r->next_id] = Entry{model};
  return r->next_id++;
}

void audio_stream_ended(int64_t id, SoftTokens soft_tokens) {
  Locked r;
  Entry& e = r->streams.at(id);
  e.ended = true;
  e.soft_tokens = std::move(soft_tokens);
}

void audio_stream_destroyed(int64_t id) {
  Locked r;
  r->streams.erase(id);
}

void audio_streams_model_destroyed(const saguaro_model* model) {
  Locked r;
  for (auto& [id, e] : r->streams)
    if (e.model == model) e.model = nullptr;
}

bool resolve_audio_streams(const saguaro_model* model, const Engine& engine, const std::vector<AudioRef>& refs,
                           std::vector<AudioSource>* sources, std::string* err) {
  Locked r;
  for (size_t i = 0; i < refs.size(); ++i) {
    if (refs[i].stream == 0) continue;
    std::string problem = engine.spec().audio ? refusal(*r, model, refs[i].stream) : "the model has no audio tower";
    if (!problem.empty()) return *err = "messages_json: " + refs[i].at + ": " + problem, false;
    (*sources)[i].streamed = r->streams.at(refs[i].stream).soft_tokens;
  }
  return true;
}

}  // namespace saguaro
