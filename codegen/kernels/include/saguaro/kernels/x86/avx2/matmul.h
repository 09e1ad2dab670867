// Dense float32 matrix products (AVX2+FMA).
//
// Each output keeps one 8-lane FMA accumulator over k (chunks of 8 in ascending order, the K % 8 tail masked),
// reduced in the fixed order of common.h; so y[r][n] is the same whichever rows and columns were tiled with it.
// It differs from the generic kernel (one float accumulator, k order) by rounding only.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "saguaro/kernels/x86/avx2/common.h"

namespace saguaro::kernels::x86_avx2 {

namespace matmul_detail {

/// y[r·N + b] = Σ_k x[r·K + k]·w[b·K + k] for r < R, b < NB: an R×NB register tile.
template <int K, int N, int R, int NB>
inline void tile(const float* x, const float* w, float* y) {
  constexpr int kChunks = K / 8;
  constexpr int kTail = K % 8;
  __m256 acc[R][NB];
  #pragma GCC unroll 16
  for (int r = 0; r < R; ++r)
    #pragma GCC unroll 16
    for (int b = 0; b < NB; ++b) acc[r][b] = _mm256_setzero_ps();
  for (int c = 0; c < kChunks; ++c) {
    __m256 wv[NB];
    #pragma GCC unroll 16
    for (int b = 0; b < NB; ++b) wv[b] = _mm256_loadu_ps(w + b * K + 8 * c);
    #pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const __m256 xv = _mm256_loadu_ps(x + static_cast<int64_t>(r) * K + 8 * c);
      #pragma GCC unroll 16
      for (int b = 0; b < NB; ++b) acc[r][b] = _mm256_fmadd_ps(wv[b], xv, acc[r][b]);
    }
  }
  if constexpr (kTail != 0) {
    const __m256i m = detail::first_lanes(kTail);
    __m256 wv[NB];
    #pragma GCC unroll 16
    for (int b = 0; b < NB; ++b) wv[b] = _mm256_maskload_ps(w + b * K + 8 * kChunks, m);
    #pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const __m256 xv = _mm256_maskload_ps(x + static_cast<int64_t>(r) * K + 8 * kChunks, m);
      #pragma GCC unroll 16
      for (int b = 0; b < NB; ++b) acc[r][b] = _mm256_fmadd_ps(wv[b], xv, acc[r][b]);
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

/// Columns [n0, n1) of `rows` (< 4) rows.
template <int K, int N>
inline void columns_tail(int32_t rows, int n0, int n1, const float* x, const float* w, float* y) {
  switch (rows) {
    case 1:
      columns<K, N, 1, 4>(n0, n1, x, w, y);
      break;
    case 2:
      columns<K, N, 2, 3>(n0, n1, x, w, y);
      break;
    case 3:
      columns<K, N, 3, 3>(n0, n1, x, w, y);
      break;
    default:
      break;
  }
}

}  // namespace matmul_detail

/// y[r][n] = Σ_k x[r][k]·W[n][k] for W float32 [N][K] (contract of generic::matmul_f32, FMA-reordered sums).
/// Decode (rows = 1) reads four weight rows per step; prefill walks W in column blocks of about 128 KiB and,
/// inside one, tiles 4 rows × 3 columns so a W block is read from cache once per 4 activation rows.
template <int K, int N>
inline void matmul_f32(int32_t rows, const float* x, const void* W, float* y) {
  const float* w = static_cast<const float*>(W);
  constexpr int kBlock = (32768 / K) / 12 * 12 > 12 ? (32768 / K) / 12 * 12 : 12;
  for (int n0 = 0; n0 < N; n0 += kBlock) {
    const int n1 = n0 + kBlock < N ? n0 + kBlock : N;
    int32_t r = 0;
    for (; r + 4 <= rows; r += 4) {
      matmul_detail::columns<K, N, 4, 3>(n0, n1, x + static_cast<int64_t>(r) * K, w, y + static_cast<int64_t>(r) * N);
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

}  // namespace saguaro::kernels::x86_avx2
