// KV-cache store and causal GQA attention (generic), in llama2.c's float operation order.
//
// A layer that computes K/V owns caches kc/vc[KVH][S][HD] of S = kv_cache_positions(window, max_seq) positions
// (kv_layout.h): every position for a full layer, a ring of the last `window` for a sliding one. A forward pass
// over a chunk of rows attends over the cached positions before the chunk and the chunk's own K/V rows, then
// stores the chunk (kv_store_f32's contract).
#pragma once

#include <cmath>
#include <cstdint>

#include "saguaro/kernels/cq_format.h"
#include "saguaro/kernels/generic/element.h"
#include "saguaro/kernels/kv_layout.h"
#include "saguaro/kernels/parallel.h"

namespace saguaro::kernels::generic {

// Cache elements: float (the f32 cache), or IEEE binary16 bits in a uint16_t (the f16 cache: half the bytes, and
// half of what decode reads from the cache per token). A value enters the f16 cache rounded to nearest even
// (beyond ±65504: ±inf) and leaves it exactly (load_float, element.h). Kernels take the element type from the
// cache pointers; the arithmetic is float32 either way.
inline void kv_put(float* p, float x) { *p = x; }
inline void kv_put(uint16_t* p, float x) { *p = cq::float_to_half(x); }

/// Calls copy(src, dst) for every (row r, KV head kh) that a store of `rows` rows at positions pos0.. into caches
/// of `slots` positions keeps: HD values from k/v + src, src = (r·KVH + kh)·HD, go to the caches + dst, dst =
/// (kh·slots + (pos0 + r) % slots)·HD. Of more rows than slots only the last `slots` are stored: the earlier ones'
/// slots belong to later rows of the same store.
template <int KVH, int HD, class F>
inline void for_each_kv_row(int32_t rows, int32_t pos0, int32_t slots, F&& copy) {
  for (int32_t r = rows > slots ? rows - slots : 0; r < rows; ++r) {
    const int64_t slot = (pos0 + r) % slots;
    for (int kh = 0; kh < KVH; ++kh)
      copy((static_cast<int64_t>(r) * KVH + kh) * HD, (static_cast<int64_t>(kh) * slots + slot) * HD);
  }
}

/// The rows for_each_kv_row names, copied from k/v[rows][KVH·HD] into the caches kc/vc[KVH][slots][HD] of element
/// type KV.
template <int KVH, int HD, class KV>
inline void store_kv_rows(int32_t rows, int32_t pos0, int32_t slots, const float* k, const float* v, KV* kc, KV* vc) {
  for_each_kv_row<KVH, HD>(rows, pos0, slots, [&](int64_t src, int64_t dst) {
    for (int i = 0; i < HD; ++i) {
      kv_put(kc + dst + i, k[src + i]);
      kv_put(vc + dst + i, v[src + i]);
    }
  });
}

/// Stores k[rows][KVH·HD], v[rows][KVH·HD] (row r at position pos0 + r) into the caches kc/vc[KVH][S][HD] of
/// element type KV (float or binary16 bits): position t in slot t % S, the last min(rows, S) rows only
/// (kv_layout.h: S is max_seq for a full layer, so slot t; the window for a sliding one, a ring). Head-major: the
/// positions a KV head's attention reads are at most two contiguous ranges of its cache.
///
/// The forward pass's contract: while it runs, the cache holds positions before pos0 only. attention_f32 reads the
/// call's own positions from k/v, so the store of a chunk comes after the last attention that reads this cache
/// (its own layer's, and those of the layers that share its K/V); a ring written earlier would lose positions
/// that earlier rows of the chunk still see.
template <int KVH, int HD, int S, class KV>
inline void kv_store_f32(int32_t rows, int32_t pos0, const float* k, const float* v, KV* kc, KV* vc) {
  store_kv_rows<KVH, HD>(rows, pos0, S, k, v, kc, vc);
}

/// Where attention_f32 keeps the call's own K (then V) rows as the cache would hold them: after S floats of
/// scores in `scratch`, [KVH][rows][HD] elements of KV each (kv_layout.h, attention_scratch_floats).
template <int S, class KV>
inline KV* staged_keys(float* scratch) {
  return reinterpret_cast<KV*>(scratch + S);
}

/// The K (or V) row of position t for KV head kh in a call at pos0 with `rows` rows: positions before pos0 from
/// the cache c[KVH][S][HD] (slot t % S), the call's own from its staged rows s[KVH][rows][HD].
template <int HD, int S, class KV>
inline const KV* kv_row(int32_t t, int kh, int32_t pos0, int32_t rows, const KV* c, const KV* s) {
  return t < pos0 ? c + (static_cast<int64_t>(kh) * S + t % S) * HD
                  : s + (static_cast<int64_t>(kh) * rows + (t - pos0)) * HD;
}

/// llama2.c softmax in place over x[0..n): max, expf(x-max), sum, divide.
inline void softmax_f32(float* x, int32_t n) {
  float max_val = x[0];
  for (int32_t i = 1; i < n; ++i) {
    if (x[i] > max_val) max_val = x[i];
  }
  float sum = 0.0f;
  for (int32_t i = 0; i < n; ++i) {
    x[i] = expf(x[i] - max_val);
    sum += x[i];
  }
  for (int32_t i = 0; i < n; ++i) x[i] /= sum;
}

/// Calls group(r, kh) for every (query row r, KV head kh) pair of an attention call — independent units of work —
/// with the pairs split over the threads of `par` (the ISA kernels' thread split).
template <int H, int KVH, int HD, int Window, class F>
inline void for_each_kv_head_group(const Parallel* par, int32_t rows, int32_t pos0, F&& group) {
  const int64_t span = Window > 0 && Window < pos0 + rows ? Window : pos0 + rows;  // positions a row sees, at most
  parallel_ranges(par, int64_t{rows} * KVH, 1, int64_t{2} * rows * H * span * HD, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) group(static_cast<int32_t>(i / KVH), static_cast<int>(i % KVH));
  });
}

/// Causal GQA attention of q[rows][H][HD] (rows at positions pos0..pos0+rows-1) into out[rows][H][HD], over the
/// positions before pos0 in the caches kc/vc[KVH][S][HD] (elements KV: float or binary16; slot t % S, as
/// kv_store_f32 puts them) and the call's own positions in k/v[rows][KVH·HD], which the caches do not hold yet
/// (kv_store_f32's contract). The own rows are read as the cache would hold them (rounded to binary16 for an f16
/// cache): the result does not depend on how a sequence is cut into calls.
/// Query row r (position p = pos0+r) sees t in [max(0, p-Window+1), p]; Window 0 = unlimited. The cache must
/// still hold every position before pos0 that a row sees: S >= Window for a ring, else pos0 + rows <= S.
/// score = dot·scale, or dot / sqrtf((float)HD) when DivideBySqrtHD (llama2.c's exact form: the two
/// differ in the last bit when HD is not a power of 4, e.g. stories260K's HD=8); then, if softcap > 0,
/// score = softcap·tanhf(score/softcap). The weighted V sum runs t outer, i inner. scratch holds
/// attention_scratch_floats(KVH, HD, S, rows) floats (kv_layout.h): S scores, then the staged own rows.
/// The reference runs on the calling thread (one score buffer); the ISA kernels split the work over `par`.
template <int H, int KVH, int HD, int S, int Window, bool DivideBySqrtHD = false, class KV = float>
inline void attention_f32(int32_t rows, int32_t pos0, const float* q, const float* k, const float* v, const KV* kc,
                          const KV* vc, float scale, float softcap, float* scratch, float* out,
                          const Parallel* par = nullptr) {
  (void)par;
  static_assert(H % KVH == 0, "query heads must be a multiple of KV heads");
  static_assert(Window >= 0, "window is 0 (unlimited) or a positive length");
  constexpr int kKvMul = H / KVH;
  KV* ks = staged_keys<S, KV>(scratch);
  KV* vs = ks + static_cast<int64_t>(KVH) * rows * HD;
  store_kv_rows<KVH, HD>(rows, 0, rows, k, v, ks, vs);
  for (int32_t r = 0; r < rows; ++r) {
    const int32_t p = pos0 + r;
    const int32_t t0 = (Window > 0 && p - Window + 1 > 0) ? p - Window + 1 : 0;
    const int32_t n = p - t0 + 1;
    for (int h = 0; h < H; ++h) {
      const float* qh = q + (static_cast<int64_t>(r) * H + h) * HD;
      const int kh = h / kKvMul;
      for (int32_t t = t0; t <= p; ++t) {
        const KV* kt = kv_row<HD, S>(t, kh, pos0, rows, kc, ks);
        float score = 0.0f;
        for (int i = 0; i < HD; ++i) score += qh[i] * load_float(kt + i);
        if (DivideBySqrtHD) {
          score /= sqrtf(static_cast<float>(HD));
        } else {
          score *= scale;
        }
        if (softcap > 0.0f) score = softcap * tanhf(score / softcap);
        scratch[t - t0] = score;
      }
      softmax_f32(scratch, n);
      float* xb = out + (static_cast<int64_t>(r) * H + h) * HD;
      for (int i = 0; i < HD; ++i) xb[i] = 0.0f;
      for (int32_t t = t0; t <= p; ++t) {
        const KV* vt = kv_row<HD, S>(t, kh, pos0, rows, vc, vs);
        const float a = scratch[t - t0];
        for (int i = 0; i < HD; ++i) xb[i] += a * load_float(vt + i);
      }
    }
  }
}

}  // namespace saguaro::kernels::generic
