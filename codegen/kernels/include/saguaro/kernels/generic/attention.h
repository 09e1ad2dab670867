// KV-cache store and causal GQA attention (generic), in llama2.c's float operation order.
#pragma once

#include <cmath>
#include <cstdint>

#include "saguaro/kernels/cq_format.h"
#include "saguaro/kernels/generic/element.h"
#include "saguaro/kernels/parallel.h"

namespace saguaro::kernels::generic {

// Cache elements: float (the f32 cache), or IEEE binary16 bits in a uint16_t (the f16 cache: half the bytes, and
// half of what decode reads from the cache per token). A value enters the f16 cache rounded to nearest even
// (beyond ±65504: ±inf) and leaves it exactly (load_float, element.h). Kernels take the element type from the
// cache pointers; the arithmetic is float32 either way.
inline void kv_put(float* p, float x) { *p = x; }
inline void kv_put(uint16_t* p, float x) { *p = cq::float_to_half(x); }

/// Calls copy(src, dst) for every (row r, KV head kh) a kv_store writes: HD values from k/v + src, src =
/// (r·KVH + kh)·HD, go to the caches + dst, dst = (kh·S + pos0 + r)·HD.
template <int KVH, int HD, int S, class F>
inline void for_each_kv_row(int32_t rows, int32_t pos0, F&& copy) {
  for (int32_t r = 0; r < rows; ++r)
    for (int kh = 0; kh < KVH; ++kh)
      copy((static_cast<int64_t>(r) * KVH + kh) * HD, (static_cast<int64_t>(kh) * S + pos0 + r) * HD);
}

/// Copies k[rows][KVH·HD], v[rows][KVH·HD] (row r at position pos0 + r < S) into the caches kc/vc[KVH][S][HD]
/// of element type KV (float or binary16 bits). Head-major: the positions a KV head's attention reads are one
/// contiguous range of its cache.
template <int KVH, int HD, int S, class KV>
inline void kv_store_f32(int32_t rows, int32_t pos0, const float* k, const float* v, KV* kc, KV* vc) {
  for_each_kv_row<KVH, HD, S>(rows, pos0, [&](int64_t src, int64_t dst) {
    for (int i = 0; i < HD; ++i) {
      kv_put(kc + dst + i, k[src + i]);
      kv_put(vc + dst + i, v[src + i]);
    }
  });
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

/// Causal GQA attention of q[rows][H][HD] over kc/vc[KVH][S][HD] (elements KV: float or binary16) into
/// out[rows][H][HD].
/// Query row r (position p = pos0+r) sees t in [max(0, p-Window+1), p]; Window 0 = unlimited.
/// score = dot·scale, or dot / sqrtf((float)HD) when DivideBySqrtHD (llama2.c's exact form: the two
/// differ in the last bit when HD is not a power of 4, e.g. stories260K's HD=8); then, if softcap > 0,
/// score = softcap·tanhf(score/softcap). The weighted V sum runs t outer, i inner. scratch holds S floats.
/// The reference runs on the calling thread (one score buffer); the ISA kernels split the work over `par`.
template <int H, int KVH, int HD, int S, int Window, bool DivideBySqrtHD = false, class KV = float>
inline void attention_f32(int32_t rows, int32_t pos0, const float* q, const KV* kc, const KV* vc,
                          float scale, float softcap, float* scratch, float* out, const Parallel* par = nullptr) {
  (void)par;
  static_assert(H % KVH == 0, "query heads must be a multiple of KV heads");
  static_assert(Window >= 0, "window is 0 (unlimited) or a positive length");
  constexpr int kKvMul = H / KVH;
  for (int32_t r = 0; r < rows; ++r) {
    const int32_t p = pos0 + r;
    const int32_t t0 = (Window > 0 && p - Window + 1 > 0) ? p - Window + 1 : 0;
    const int32_t n = p - t0 + 1;
    for (int h = 0; h < H; ++h) {
      const float* qh = q + (static_cast<int64_t>(r) * H + h) * HD;
      const int64_t koff = static_cast<int64_t>(h / kKvMul) * S * HD;
      for (int32_t t = t0; t <= p; ++t) {
        const KV* k = kc + koff + static_cast<int64_t>(t) * HD;
        float score = 0.0f;
        for (int i = 0; i < HD; ++i) score += qh[i] * load_float(k + i);
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
        const KV* v = vc + koff + static_cast<int64_t>(t) * HD;
        const float a = scratch[t - t0];
        for (int i = 0; i < HD; ++i) xb[i] += a * load_float(v + i);
      }
    }
  }
}

}  // namespace saguaro::kernels::generic
