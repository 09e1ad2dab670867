// Dense matrix products with float32 or binary16 weights (AVX2+FMA, F16C).
//
// Each output keeps one 8-lane FMA accumulator over k (chunks of 8 in ascending order, the K % 8 tail zero-
// padded), reduced in the fixed order of common.h; so y[r][n] is the same whichever rows and columns were tiled
// with it, and whichever thread's column range it fell in. It differs from the generic kernel (one float
// accumulator, k order) by rounding only. Half weights are converted exactly (F16C) as they are loaded, so the
// same code serves both weight types.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "saguaro/kernels/generic/matmul.h"
#include "saguaro/kernels/parallel.h"
#include "saguaro/kernels/x86/avx2/common.h"

namespace saguaro::kernels::x86_avx2 {

namespace matmul_detail {

/// y[r·N + b] = Σ_k x[r·K + k]·w_b[k] for r < R, b < NB: an R×NB register tile; Wt is float or uint16_t
/// (binary16 bits). Row b of the tile is w_b = w + b·K (row-major), or, when `Panel`, row b of the three-row panel
/// at w (dense_layout.h: chunk c of row b at w + 24·c + 8·b; NB = 3, K a multiple of 8; no K % 8 tail).
template <int K, int N, int R, int NB, bool Panel, class Wt>
inline void tile(const float* x, const Wt* w, float* y) {
  static_assert(!Panel || (NB == dense::kPanelRows && K % dense::kPanelChunk == 0), "a panel tile is one panel");
  constexpr int kChunks = K / 8;
  constexpr int kTail = K % 8;
  constexpr int kPanelStep = dense::kPanelRows * dense::kPanelChunk;  // elements per chunk step of a panel
  __m256 acc[R][NB];
  #pragma GCC unroll 16
  for (int r = 0; r < R; ++r)
    #pragma GCC unroll 16
    for (int b = 0; b < NB; ++b) acc[r][b] = _mm256_setzero_ps();
  for (int c = 0; c < kChunks; ++c) {
    if constexpr (R < 4 && !Panel) {
      // Decode streams w once, NB rows at a time: NB interleaved row streams, which the hardware prefetchers follow
      // poorly (a cold 1024 x 3072 binary16 GEMV read 4-6 bytes per cycle against 12 for a plain sequential read).
      // So the tile requests the next tile's bytes into L2 in address order, as fast as it consumes its own: one
      // sequential stream ahead of the loads (9 bytes per cycle in the same test). Prefetches past the end of w
      // are harmless (they never fault). A panel is one sequential stream already: the hardware prefetchers keep
      // up with it alone (cold 1024 x 2048 binary16 panels: 10.6-12.2 bytes per cycle without, 8.5-11.2 with).
      constexpr int64_t kTileBytes = int64_t{NB} * K * sizeof(Wt);
      constexpr int64_t kChunkBytes = int64_t{NB} * 8 * sizeof(Wt);
      const char* ahead = reinterpret_cast<const char*>(w) + kTileBytes;
      for (int64_t l = (c * kChunkBytes + 63) / 64 * 64; l < (c + 1) * kChunkBytes; l += 64)
        _mm_prefetch(ahead + l, _MM_HINT_T1);
    }
    __m256 wv[NB];
    #pragma GCC unroll 16
    for (int b = 0; b < NB; ++b) wv[b] = detail::load8(Panel ? w + kPanelStep * c + 8 * b : w + b * K + 8 * c);
    #pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const __m256 xv = _mm256_loadu_ps(x + static_cast<int64_t>(r) * K + 8 * c);
      #pragma GCC unroll 16
      for (int b = 0; b < NB; ++b) acc[r][b] = _mm256_fmadd_ps(wv[b], xv, acc[r][b]);
    }
  }
  if constexpr (kTail != 0) {
    __m256 wv[NB];
    #pragma GCC unroll 16
    for (int b = 0; b < NB; ++b) wv[b] = detail::load8_first(w + b * K + 8 * kChunks, kTail);
    #pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const __m256 xv = detail::load8_first(x + static_cast<int64_t>(r) * K + 8 * kChunks, kTail);
      #pragma GCC unroll 16
      for (int b = 0; b < NB; ++b) acc[r][b] = _mm256_fmadd_ps(wv[b], xv, acc[r][b]);
    }
  }
  #pragma GCC unroll 16
  for (int r = 0; r < R; ++r) detail::hsums<NB>(acc[r], y + static_cast<int64_t>(r) * N);
}

/// Columns [n0, n1) of R rows: NB-wide tiles, then single columns. In `Layout` dense::kPanel3, NB is 3 and n0 a
/// multiple of 3: each tile is one panel, and single columns are only the row-major rows after the last panel.
template <int K, int N, int R, int NB, int Layout, class Wt>
inline void columns(int64_t n0, int64_t n1, const float* x, const Wt* w, float* y) {
  constexpr bool kPanel = Layout == dense::kPanel3;
  int64_t n = n0;
  for (; n + NB <= n1; n += NB) tile<K, N, R, NB, kPanel>(x, w + n * K, y + n);
  for (; n < n1; ++n) tile<K, N, R, 1, false>(x, w + n * K, y + n);
}

/// Columns [n0, n1) of `rows` (< 4) rows.
template <int K, int N, int Layout, class Wt>
inline void columns_tail(int32_t rows, int64_t n0, int64_t n1, const float* x, const Wt* w, float* y) {
  switch (rows) {
    case 1:
      columns<K, N, 1, Layout == dense::kPanel3 ? 3 : 4, Layout>(n0, n1, x, w, y);
      break;
    case 2:
      columns<K, N, 2, 3, Layout>(n0, n1, x, w, y);
      break;
    case 3:
      columns<K, N, 3, 3, Layout>(n0, n1, x, w, y);
      break;
    default:
      break;
  }
}

/// Columns per thread range: a multiple of every tile width (3, 4), so threads cut no tile.
constexpr int64_t kThreadAlign = 12;

/// y[r][n] = Σ_k x[r][k]·w[n][k] for w [N][K] of float or binary16 bits stored in `Layout` (dense_layout.h).
/// Decode (rows = 1) reads four weight rows per step (three: one panel); prefill walks w in column blocks of about
/// 128 KiB and, inside one, tiles 4 rows × 3 columns so a w block is read from cache once per 4 activation rows.
/// The columns are split over `par`'s threads in whole tiles (decode: each thread streams its share of w).
template <int K, int N, int Layout, class Wt>
inline void matmul(int32_t rows, const float* x, const Wt* w, float* y, const Parallel* par) {
  static_assert(Layout == dense::kRowMajor || (Layout == dense::kPanel3 && dense::panel_fits(K)), "unknown layout");
  constexpr int kFit = 131072 / (K * static_cast<int>(sizeof(Wt))) / 12 * 12;
  constexpr int kBlock = kFit > 12 ? kFit : 12;
  parallel_ranges(par, N, kThreadAlign, int64_t{rows} * N * K, [&](int64_t b, int64_t e) {
    for (int64_t n0 = b; n0 < e; n0 += kBlock) {
      const int64_t n1 = n0 + kBlock < e ? n0 + kBlock : e;
      int32_t r = 0;
      for (; r + 4 <= rows; r += 4) {
        columns<K, N, 4, 3, Layout>(n0, n1, x + static_cast<int64_t>(r) * K, w, y + static_cast<int64_t>(r) * N);
      }
      if (r < rows) {
        columns_tail<K, N, Layout>(rows - r, n0, n1, x + static_cast<int64_t>(r) * K, w,
                                   y + static_cast<int64_t>(r) * N);
      }
    }
  });
}

}  // namespace matmul_detail

// matmul_f32, matmul_f16, logits_f32, logits_f16 (contracts of the generic kernels, FMA-reordered sums).
SAGUARO_KERNELS_DEFINE_DENSE_MATMULS()

}  // namespace saguaro::kernels::x86_avx2
