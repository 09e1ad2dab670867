// Binds a blob's tensors to the generated model's weight slots and owns the arena and KV cache.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "huge_pages.h"
#include "saguaro/model_abi.h"

// 0 in a runtime built without a thread pool (CMake's SAGUARO_THREAD_POOL OFF: `saguaro compile --threads 0`).
#ifndef SAGUARO_THREAD_POOL
#define SAGUARO_THREAD_POOL 1
#endif
#if SAGUARO_THREAD_POOL
#include "thread_pool.h"
#endif

namespace saguaro {

class Blob;

/// Bytes a model bound to `blob` holds whatever it reads: the planned arena and KV cache and the blob but its mapped
/// section (manifest.json's memory.resident_bytes).
uint64_t resident_bytes(const ModelSpec& spec, const Blob& blob);

/// Memory the generated model works in: weight pointers, activation arena, KV cache (on huge pages, touched).
class BoundModel {
 public:
  /// Checks every weight of `spec` against `blob` (name, dtype, bytes) and allocates the arena and KV cache.
  static std::unique_ptr<BoundModel> bind(const ModelSpec& spec, const Blob& blob, std::string* err);
  ~BoundModel();
  BoundModel(const BoundModel&) = delete;
  BoundModel& operator=(const BoundModel&) = delete;

  const ModelState& state() const { return state_; }
  /// Installs (or, with null, removes) the hook the generated code's taps call.
  void set_tap(TapFn fn, void* ctx) { state_.tap = fn, state_.tap_ctx = ctx; }
  /// Runs the kernels on `threads` threads (0: every hardware thread); results do not depend on it. Without a
  /// thread pool they always run on the calling thread.
  void set_threads(int32_t threads);
  int32_t threads() const;
  /// Runs an encoder tower of the spec (spec.vision, spec.audio) on an arena of its own, held only during the call;
  /// false when that arena cannot be allocated. A vision tower's patches must pass check_patch_grid; an audio tower
  /// takes 1 to max_rows frames.
  bool encode(const EncoderSpec& tower, const float* rows_in, const int32_t* positions, int32_t rows,
              float* soft_tokens) const;
  /// The same for a streamed clip's step (EncoderSpec::encode_step): `rows` frames after `start`, with the stream's
  /// `state`. With `kept`, the step runs on that arena instead, mapping it first when it is empty: a stream's steps
  /// then share one arena rather than mapping and zeroing the tower's whole working memory each time.
  bool encode_step(const EncoderSpec& tower, const float* features, int32_t rows, int32_t start, float* state,
                   float* soft_tokens, HugePageMemory* kept = nullptr) const;
  /// Zeroes the KV cache (start of a new sequence).
  void clear_kv();
  uint64_t kv_bytes() const { return kv_.bytes(); }

 private:
  BoundModel() = default;
  std::vector<const void*> weights_;
  HugePageMemory arena_;
  HugePageMemory kv_;
#if SAGUARO_THREAD_POOL
  std::unique_ptr<ThreadPool> pool_;
#endif
  ModelState state_{};
  const ModelSpec* spec_ = nullptr;
};

}  // namespace saguaro
