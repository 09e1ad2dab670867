// Dense float32 matrix products (NEON).
//
// Each output keeps one 4-lane FMA accumulator over k (chunks of 4 in ascending order, the K % 4 tail zero-
// padded), reduced in the fixed order of common.h; so y[r][n] is the same whichever rows and columns were tiled
// with it. It differs from the generic kernel (one float accumulator, k order) by rounding only.
#pragma once

#include <arm_neon.h>

#include <cstdint>

#include "saguaro/kernels/arm64/neon/common.h"

namespace saguaro::kernels::arm64_neon {

namespace matmul_detail {

/// y[r·N + b] = Σ_k x[r·K + k]·w[b·K + k] for r < R, b < NB: an R×NB register tile.
template <int K, int N, int R, int NB>
inline void tile(const float* x, const float* w, float* y) {
  constexpr int kChunks = K / 4;
  constexpr int kTail = K % 4;
  float32x4_t acc[R][NB];
  #pragma GCC unroll 16
  for (int r = 0; r < R; ++r)
    #pragma GCC unroll 16
    for (int b = 0; b < NB; ++b) acc[r][b] = vdupq_n_f32(0.0f);
  for (int c = 0; c < kChunks; ++c) {
    float32x4_t wv[NB];
    #pragma GCC unroll 16
    for (int b = 0; b < NB; ++b) wv[b] = vld1q_f32(w + b * K + 4 * c);
    #pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const float32x4_t xv = vld1q_f32(x + static_cast<int64_t>(r) * K + 4 * c);
      #pragma GCC unroll 16
      for (int b = 0; b < NB; ++b) acc[r][b] = vfmaq_f32(acc[r][b], wv[b], xv);
    }
  }
  if constexpr (kTail != 0) {
    float32x4_t wv[NB];
    #pragma GCC unroll 16
    for (int b = 0; b < NB; ++b) wv[b] = detail::load_first(w + b * K + 4 * kChunks, kTail);
    #pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const float32x4_t xv = detail::load_first(x + static_cast<int64_t>(r) * K + 4 * kChunks, kTail);
      #pragma GCC unroll 16
      for (int b = 0; b < NB; ++b) acc[r][b] = vfmaq_f32(acc[r][b], wv[b], xv);
    }
  }
  #pragma GCC unroll 16
  for (int r = 0; r < R; ++r) detail::hsums<NB>(acc[r], y + static_cast<int64_t>(r) * N);
}

/// Columns [n0, n1) of R rows: NB-wide tiles, then single columns.
template <int K, int N, int R, int NB>
inline void columns(int n0, int n1, const float* x, const float* w, float* y) {
  int n = n0;
  for (; n + NB <= n1; n += NB) tile<K, N, R, NB>(x, w + static_cast<int64_t>(n) * K, y + n);
  for (; n < n1; ++n) tile<K, N, R, 1>(x, w + static_cast<int64_t>(n) * K, y + n);
}

/// Columns [n0, n1) of `rows` (< 4) rows; fewer rows take more columns so enough FMA chains run at once.
template <int K, int N>
inline void columns_tail(int32_t rows, int n0, int n1, const float* x, const float* w, float* y) {
  switch (rows) {
    case 1:
      columns<K, N, 1, 8>(n0, n1, x, w, y);
      break;
    case 2:
      columns<K, N, 2, 4>(n0, n1, x, w, y);
      break;
    case 3:
      columns<K, N, 3, 4>(n0, n1, x, w, y);
      break;
    default:
      break;
  }
}

}  // namespace matmul_detail

/// y[r][n] = Σ_k x[r][k]·W[n][k] for W float32 [N][K] (contract of generic::matmul_f32, FMA-reordered sums).
/// Decode (rows = 1) reads eight weight rows per step (eight independent FMA chains hide the FMA latency);
/// prefill walks W in column blocks of about 128 KiB and, inside one, tiles 4 rows × 4 columns (16 accumulators
/// of the 32 vector registers) so a W block is read from cache once per 4 activation rows.
template <int K, int N>
inline void matmul_f32(int32_t rows, const float* x, const void* W, float* y) {
  const float* w = static_cast<const float*>(W);
  constexpr int kBlock = (32768 / K) / 8 * 8 > 8 ? (32768 / K) / 8 * 8 : 8;
  for (int n0 = 0; n0 < N; n0 += kBlock) {
    const int n1 = n0 + kBlock < N ? n0 + kBlock : N;
    int32_t r = 0;
    for (; r + 4 <= rows; r += 4) {
      matmul_detail::columns<K, N, 4, 4>(n0, n1, x + static_cast<int64_t>(r) * K, w, y + static_cast<int64_t>(r) * N);
    }
    if (r < rows) {
      matmul_detail::columns_tail<K, N>(rows - r, n0, n1, x + static_cast<int64_t>(r) * K, w,
                                        y + static_cast<int64_t>(r) * N);
    }
  }
}

/// Output projection: all rows when `all`, else only the last row of x into y[0..N).
template <int K, int N>
inline void logits_f32(int32_t rows, bool all, const float* x, const void* W, float* y) {
  if (all) {
    matmul_f32<K, N>(rows, x, W, y);
  } else {
    matmul_f32<K, N>(1, x + static_cast<int64_t>(rows - 1) * K, W, y);
  }
}

}  // namespace saguaro::kernels::arm64_neon
