// Weight binding and aligned allocation of the model's working memory.
#include "model_state.h"

#include "saguaro/blob.h"
#include "saguaro/blob_format.h"
#include "saguaro/kernels/cpu_features.h"
#include "saguaro/kernels/layouts.h"

namespace saguaro {

uint64_t resident_bytes(const ModelSpec& spec, const Blob& blob) {
  return spec.arena_bytes + spec.kv_bytes + blob.size() - blob.mapped_bytes();
}

std::unique_ptr<BoundModel> BoundModel::bind(const ModelSpec& spec, const Blob& blob, std::string* err) {
  // Before anything of model.cpp runs: its kernels were compiled with the target's extensions, and on a CPU
  // without them the first one would die with SIGILL (a bundle copied to an older machine).
  const char* target = spec.target ? spec.target : "generic";
  if (const std::string missing = kernels::missing_extensions(target, kernels::cpu_has); !missing.empty())
    return *err = blob.name() + ": the model was compiled for " + target + ", but this CPU lacks " + missing +
                  " (compile it with --target native, or generic)",
           nullptr;
  std::unique_ptr<BoundModel> m(new BoundModel());
  for (uint32_t i = 0; i < spec.n_weights; ++i) {
    const WeightSpec& w = spec.weights[i];
    const BlobEntry* e = blob.find(w.name);
    const std::string what = blob.name() + ": weight '" + w.name + "'";
    if (!e || e->kind != "weight") return *err = what + " missing (model " + spec.name + " needs it)", nullptr;
    if (e->dtype != w.dtype)
      return *err = what + " is " + blob_format::dtype_name(e->dtype) + ", model expects " +
                    blob_format::dtype_name(w.dtype),
             nullptr;
    if (e->bytes != w.bytes)
      return *err = what + " has " + std::to_string(e->bytes) + " bytes, model expects " + std::to_string(w.bytes),
             nullptr;
    // The same bytes in another arrangement would be read wrongly without a sound: a blob written for another
    // target (packed layouts differ per target) is refused.
    const std::string layout = w.layout ? w.layout : kernels::kUnpackedLayout;
    if (e->layout != layout)
      return *err = what + " is stored as " + e->layout + ", model expects " + layout +
                    " (weights compiled for another target?)",
             nullptr;
    m->weights_.push_back(e->data);
  }
  // Huge pages: attention reads a short range of KV rows per head from DRAM every token, and on 4 KiB pages each
  // range crossed about ten page boundaries (docs/runtime.md, "Weight binding and memory", has the measurement).
  m->arena_ = HugePageMemory(spec.arena_bytes);
  m->kv_ = HugePageMemory(spec.kv_bytes);
  if (!m->arena_.data() || !m->kv_.data()) return *err = blob.name() + ": out of memory for arena/KV cache", nullptr;
  m->state_.arena = static_cast<float*>(m->arena_.data());
  m->state_.kv = m->kv_.data();
  m->state_.w = m->weights_.data();
  m->spec_ = &spec;
  m->set_threads(0);
  return m;
}

namespace {
/// Runs `body` with `state` on `kept` (mapped first when empty), or without it on an arena of `tower`'s own held
/// only during the call; false when the arena cannot be allocated.
template <typename Body>
bool on_tower_arena(const EncoderSpec& tower, const ModelState& state, HugePageMemory* kept, Body body) {
  HugePageMemory own;
  HugePageMemory& arena = kept ? *kept : own;
  if (!arena.data()) arena = HugePageMemory(tower.arena_bytes);
  if (!arena.data()) return false;
  ModelState s = state;
  s.arena = static_cast<float*>(arena.data());
  body(s);
  return true;
}
}  // namespace

bool BoundModel::encode(const EncoderSpec& tower, const float* rows_in, const int32_t* positions, int32_t rows,
                        float* soft_tokens) const {
  return on_tower_arena(tower, state_, nullptr,
                        [&](const ModelState& s) { tower.encode(s, rows_in, positions, rows, soft_tokens); });
}

bool BoundModel::encode_step(const EncoderSpec& tower, const float* features, int32_t rows, int32_t start,
                             float* state, float* soft_tokens, HugePageMemory* kept) const {
  return on_tower_arena(tower, state_, kept, [&](const ModelState& s) {
    tower.encode_step(s, features, rows, start, state, soft_tokens);
  });
}

#if SAGUARO_THREAD_POOL
void BoundModel::set_threads(int32_t threads) {
  const int32_t n = threads > 0 ? threads : ThreadPool::hardware_threads();
  state_.parallel = nullptr;
  pool_.reset();
  if (n > 1) {
    pool_ = std::make_unique<ThreadPool>(n);
    state_.parallel = pool_->parallel();
  }
}

int32_t BoundModel::threads() const { return pool_ ? pool_->threads() : 1; }
#else
// Built without a thread pool: state_.parallel stays null, which the kernels read as one thread.
void BoundModel::set_threads(int32_t) {}

int32_t BoundModel::threads() const { return 1; }
#endif

BoundModel::~BoundModel() = default;

void BoundModel::clear_kv() { kv_.clear(); }

}  // namespace saguaro
