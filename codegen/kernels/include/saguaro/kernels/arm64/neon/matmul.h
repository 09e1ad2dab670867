// Dense matrix products with float32 or binary16 weights (NEON).
//
// Each output keeps one 4-lane FMA accumulator over k (chunks of 4 in ascending order, the K % 4 tail zero-
// padded), reduced in the fixed order of common.h; so y[r][n] is the same whichever rows and columns were tiled
// with it, and whichever thread's column range it fell in. It differs from the generic kernel (one float
// accumulator, k order) by rounding only. Half weights are converted exactly (FCVTL) as they are loaded, so the
// same code serves both weight types.
#pragma once

#include <arm_neon.h>

#include <cstdint>

#include "saguaro/kernels/arm64/neon/common.h"
#include "saguaro/kernels/generic/matmul.h"
#include "saguaro/kernels/parallel.h"

namespace saguaro::kernels::arm64_neon {

namespace matmul_detail {

/// y[r·N + b] = Σ_k x[r·K + k]·w[b·K + k] for r < R, b < NB: an R×NB register tile; Wt is float or uint16_t
/// (binary16 bits).
template <int K, int N, int R, int NB, class Wt>
inline void tile(const float* x, const Wt* w, float* y) {
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
    for (int b = 0; b < NB; ++b) wv[b] = detail::load4(w + b * K + 4 * c);
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
template <int K, int N, int R, int NB, class Wt>
inline void columns(int64_t n0, int64_t n1, const float* x, const Wt* w, float* y) {
  int64_t n = n0;
  for (; n + NB <= n1; n += NB) tile<K, N, R, NB>(x, w + n * K, y + n);
  for (; n < n1; ++n) tile<K, N, R, 1>(x, w + n * K, y + n);
}

/// Columns [n0, n1) of `rows` (< 4) rows; fewer rows take more columns so enough FMA chains run at once.
template <int K, int N, class Wt>
inline void columns_tail(int32_t rows, int64_t n0, int64_t n1, const float* x, const Wt* w, float* y) {
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

/// Columns per thread range: a multiple of every tile width (4, 8), so threads cut no tile.
constexpr int64_t kThreadAlign = 8;

/// y[r][n] = Σ_k x[r][k]·w[n][k] for w [N][K] of float or binary16 bits. Decode (rows = 1) reads eight weight
/// rows per step (eight independent FMA chains hide the FMA latency); prefill walks w in column blocks of about
/// 128 KiB and, inside one, tiles 4 rows × 4 columns (16 accumulators of the 32 vector registers) so a w block is
/// read from cache once per 4 activation rows. The columns are split over `par`'s threads in whole tiles
/// (decode: each thread streams its share of w). Weights are row-major (kern-pack-weights packs dense weights for
/// x86 targets only); a packed layout takes the generic kernel.
template <int K, int N, int Layout, class Wt>
inline void matmul(int32_t rows, const float* x, const Wt* w, float* y, const Parallel* par) {
  if constexpr (Layout != dense::kRowMajor) {
    generic::matmul_detail::matmul<K, N, Layout>(rows, x, w, y, par);
    return;
  }
  constexpr int kFit = 131072 / (K * static_cast<int>(sizeof(Wt))) / 8 * 8;
  constexpr int kBlock = kFit > 8 ? kFit : 8;
  parallel_ranges(par, N, kThreadAlign, int64_t{rows} * N * K, [&](int64_t b, int64_t e) {
    for (int64_t n0 = b; n0 < e; n0 += kBlock) {
      const int64_t n1 = n0 + kBlock < e ? n0 + kBlock : e;
      int32_t r = 0;
      for (; r + 4 <= rows; r += 4) {
        columns<K, N, 4, 4>(n0, n1, x + static_cast<int64_t>(r) * K, w, y + static_cast<int64_t>(r) * N);
      }
      if (r < rows) {
        columns_tail<K, N>(rows - r, n0, n1, x + static_cast<int64_t>(r) * K, w, y + static_cast<int64_t>(r) * N);
      }
    }
  });
}

}  // namespace matmul_detail

// matmul_f32, matmul_f16, logits_f32, logits_f16 (contracts of the generic kernels, FMA-reordered sums).
SAGUARO_KERNELS_DEFINE_DENSE_MATMULS()

}  // namespace saguaro::kernels::arm64_neon
