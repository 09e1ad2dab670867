// The KV cache's shape, shared by the compiler (llm-lower-to-kern sizes the caches and attention's scratch) and
// the kernels (generic/attention.h states the contract these numbers serve).
#pragma once

#include <cstdint>

namespace saguaro::kernels {

/// Positions the cache of a layer holds (the kernels' S): a sliding layer (window > 0) keeps a ring of its last
/// `window` positions, position t in slot t % window; a full layer, or a window no shorter than max_seq, keeps
/// every position, t in slot t.
constexpr int64_t kv_cache_positions(int64_t window, int64_t max_seq) {
  return window > 0 && window < max_seq ? window : max_seq;
}

/// Floats of attention_f32's scratch for calls of up to `rows` rows over a cache of `positions` (S) positions with
/// kv_heads × head_dim K/V rows: the scores of one query (at most S), then the call's own K and V rows as the cache
/// would hold them (float or binary16; counted as floats).
constexpr int64_t attention_scratch_floats(int64_t kv_heads, int64_t head_dim, int64_t positions, int64_t rows) {
  return positions + 2 * kv_heads * rows * head_dim;
}

}  // namespace saguaro::kernels
