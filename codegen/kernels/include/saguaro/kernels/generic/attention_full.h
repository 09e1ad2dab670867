// Bidirectional GQA attention of a call's rows over each other (generic): an encoder's self-attention (Gemma 4's
// vision tower), with no KV cache, no mask and no scratch buffer.
#pragma once

#include <cmath>
#include <cstdint>

#include "saguaro/kernels/parallel.h"

namespace saguaro::kernels::generic {

/// The score of query vector qh against key row kt of HD values: Σ qh[i]·kt[i] in i order, then ·scale
/// (attention_f32's float operations).
template <int HD>
inline float attention_score(const float* qh, const float* kt, float scale) {
  float score = 0.0f;
  for (int i = 0; i < HD; ++i) score += qh[i] * kt[i];
  return score * scale;
}

/// Attention of every row of q[rows][H][HD] over all `rows` rows of k/v[rows][KVH][HD] into out[rows][H][HD]
/// (out must not alias q, k or v): query head h reads KV head h / (H/KVH); score = dot·scale; a float32 softmax
/// over the rows (max-subtracted, expf), then the weighted V sum. The float operations are those of attention_f32
/// (softmax_f32's max, exp, sum, divide; the V sum t outer, i inner); for want of a buffer of `rows` scores, each
/// score is computed three times, once per pass (max, sum, weighted V), bit for bit the same. (query row, head)
/// pairs are split over the threads of `par`; every pair is computed the same way whatever thread runs it.
template <int H, int KVH, int HD>
inline void attention_full_f32(int32_t rows, const float* q, const float* k, const float* v, float scale, float* out,
                               const Parallel* par = nullptr) {
  static_assert(H % KVH == 0, "query heads must be a multiple of KV heads");
  constexpr int kKvMul = H / KVH;
  constexpr int64_t kKvStride = int64_t{KVH} * HD;
  const int64_t work = int64_t{4} * rows * H * rows * HD;  // three passes of dots and one of V
  parallel_ranges(par, int64_t{rows} * H, 1, work, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      const int64_t r = i / H;
      const int h = static_cast<int>(i % H);
      const float* qh = q + (r * H + h) * HD;
      const float* k0 = k + static_cast<int64_t>(h / kKvMul) * HD;  // row 0 of the KV head h reads
      const float* v0 = v + static_cast<int64_t>(h / kKvMul) * HD;
      float max_val = attention_score<HD>(qh, k0, scale);
      for (int32_t t = 1; t < rows; ++t) {
        const float s = attention_score<HD>(qh, k0 + t * kKvStride, scale);
        if (s > max_val) max_val = s;
      }
      float sum = 0.0f;
      for (int32_t t = 0; t < rows; ++t) sum += expf(attention_score<HD>(qh, k0 + t * kKvStride, scale) - max_val);
      float* xb = out + (r * H + h) * HD;
      for (int j = 0; j < HD; ++j) xb[j] = 0.0f;
      for (int32_t t = 0; t < rows; ++t) {
        const float a = expf(attention_score<HD>(qh, k0 + t * kKvStride, scale) - max_val) / sum;
        const float* vt = v0 + t * kKvStride;
        for (int j = 0; j < HD; ++j) xb[j] += a * vt[j];
      }
    }
  });
}

}  // namespace saguaro::kernels::generic
