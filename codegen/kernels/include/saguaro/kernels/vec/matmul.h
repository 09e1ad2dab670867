// Dense matrix products with float32 or binary16 weights, written once for the ISA sets over a float32 vector
// micro-op set and a tile shape (`Isa`: x86/avx2/matmul.h, arm64/neon/matmul.h).
//
// Each output keeps one kLanes-lane FMA accumulator over k (chunks of kLanes in ascending order, the K % kLanes
// tail zero-padded), reduced by Isa::hsums in the ISA's fixed order; so y[r][n] is the same whichever rows and
// columns were tiled with it, and whichever thread's column range it fell in. It differs from the generic kernel
// (one float accumulator, k order) by rounding only. Half weights are converted exactly as they are loaded
// (Isa::load of binary16), so the same code serves both weight types.
//
// `Isa` is a float32 micro-op set (x86_avx2::detail::F32x8, arm64_neon::detail::F32x4: zero, load and load_first
// of float and binary16, fma, hsums<n>, prefetch_l2) that also states the tiles:
//   kColumns<R, Layout>: weight rows (output columns) per register tile for R = 1…4 activation rows;
//   kThreadAlign: columns per thread range, a multiple of every tile width, so threads cut no tile;
//   kPanels: whether weights in dense::kPanel3 run here (else they take the generic kernel).
#pragma once

#include <cstdint>

#include "saguaro/kernels/dense_layout.h"
#include "saguaro/kernels/generic/matmul.h"
#include "saguaro/kernels/parallel.h"

/// Defines matmul_f32, matmul_f16, logits_f32 and logits_f16 (generic/matmul.h's contracts, FMA-reordered sums) in
/// the enclosing ISA namespace over dense_matmul::matmul with the micro-ops and tiles of `Isa`.
#define SAGUARO_KERNELS_DEFINE_VEC_DENSE_MATMULS(Isa)                                                  \
  namespace matmul_detail {                                                                           \
  template <int K, int N, int Layout, class Wt>                                                       \
  inline void matmul(int32_t rows, const float* x, const Wt* w, float* y, const Parallel* par) {      \
    vec::dense_matmul::matmul<Isa, K, N, Layout>(rows, x, w, y, par);                                 \
  }                                                                                                   \
  }                                                                                                   \
  SAGUARO_KERNELS_DEFINE_DENSE_MATMULS()

namespace saguaro::kernels::vec::dense_matmul {

/// y[r·N + b] = Σ_k x[r·K + k]·w_b[k] for r < R, b < NB: an R×NB register tile; Wt is float or uint16_t
/// (binary16 bits). Row b of the tile is w_b = w + b·K (row-major), or, when `Panel`, row b of the three-row panel
/// at w (dense_layout.h: chunk c of row b at w + 24·c + 8·b; NB = 3, K a multiple of 8; no K % 8 tail).
template <class Isa, int K, int N, int R, int NB, bool Panel, class Wt>
inline void tile(const float* x, const Wt* w, float* y) {
  using V = typename Isa::V;
  constexpr int L = Isa::kLanes;
  static_assert(!Panel || (NB == dense::kPanelRows && L == dense::kPanelChunk && K % L == 0),
                "a panel tile is one panel");
  constexpr int kChunks = K / L;
  constexpr int kTail = K % L;
  constexpr int kPanelStep = dense::kPanelRows * dense::kPanelChunk;  // elements per chunk step of a panel
  V acc[R][NB];
  #pragma GCC unroll 16
  for (int r = 0; r < R; ++r)
    #pragma GCC unroll 16
    for (int b = 0; b < NB; ++b) acc[r][b] = Isa::zero();
  for (int c = 0; c < kChunks; ++c) {
    if constexpr (R < 4 && !Panel) {
      // Decode streams w once, NB rows at a time: NB interleaved row streams, which the hardware prefetchers follow
      // poorly (x86: a cold 1024 x 3072 binary16 GEMV read 4-6 bytes per cycle against 12 for a plain sequential
      // read). So the tile requests the next tile's bytes into L2 in address order, as fast as it consumes its
      // own: one sequential stream ahead of the loads (9 bytes per cycle in the same test). Prefetches past the end
      // of w are harmless (they never fault). A panel is one sequential stream already: the hardware prefetchers
      // keep up with it alone (cold 1024 x 2048 binary16 panels: 10.6-12.2 bytes per cycle without, 8.5-11.2 with).
      constexpr int64_t kTileBytes = int64_t{NB} * K * sizeof(Wt);
      constexpr int64_t kChunkBytes = int64_t{NB} * L * sizeof(Wt);
      const int64_t line = (c * kChunkBytes + 63) / 64 * 64;
      Isa::prefetch_l2(reinterpret_cast<const char*>(w) + kTileBytes + line, (c + 1) * kChunkBytes - line);
    }
    V wv[NB];
    #pragma GCC unroll 16
    for (int b = 0; b < NB; ++b) wv[b] = Isa::load(Panel ? w + kPanelStep * c + L * b : w + b * K + L * c);
    #pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const V xv = Isa::load(x + static_cast<int64_t>(r) * K + L * c);
      #pragma GCC unroll 16
      for (int b = 0; b < NB; ++b) acc[r][b] = Isa::fma(wv[b], xv, acc[r][b]);
    }
  }
  if constexpr (kTail != 0) {
    V wv[NB];
    #pragma GCC unroll 16
    for (int b = 0; b < NB; ++b) wv[b] = Isa::load_first(w + b * K + L * kChunks, kTail);
    #pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const V xv = Isa::load_first(x + static_cast<int64_t>(r) * K + L * kChunks, kTail);
      #pragma GCC unroll 16
      for (int b = 0; b < NB; ++b) acc[r][b] = Isa::fma(wv[b], xv, acc[r][b]);
    }
  }
  #pragma GCC unroll 16
  for (int r = 0; r < R; ++r) Isa::template hsums<NB>(acc[r], y + static_cast<int64_t>(r) * N);
}

/// Columns [n0, n1) of R rows: tiles of Isa::kColumns<R, Layout>, then single columns. In `Layout` dense::kPanel3
/// the tiles are 3 wide and n0 a multiple of 3: each tile is one panel, and single columns are only the row-major
/// rows after the last panel.
template <class Isa, int K, int N, int R, int Layout, class Wt>
inline void columns(int64_t n0, int64_t n1, const float* x, const Wt* w, float* y) {
  constexpr int NB = Isa::template kColumns<R, Layout>;
  constexpr bool kPanel = Layout == dense::kPanel3;
  int64_t n = n0;
  for (; n + NB <= n1; n += NB) tile<Isa, K, N, R, NB, kPanel>(x, w + n * K, y + n);
  for (; n < n1; ++n) tile<Isa, K, N, R, 1, false>(x, w + n * K, y + n);
}

/// y[r][n] = Σ_k x[r][k]·w[n][k] for w [N][K] of float or binary16 bits stored in `Layout` (dense_layout.h).
/// Prefill walks w in column blocks of about 128 KiB and, inside one, tiles 4 activation rows so a w block is read
/// from cache once per 4 of them; the last 1–3 rows take their own (wider) tiles, so enough FMA chains run at once.
/// The columns are split over `par`'s threads in whole tiles (decode: each thread streams its share of w).
template <class Isa, int K, int N, int Layout, class Wt>
inline void matmul(int32_t rows, const float* x, const Wt* w, float* y, const Parallel* par) {
  if constexpr (Layout != dense::kRowMajor && !Isa::kPanels) {
    generic::matmul_detail::matmul<K, N, Layout>(rows, x, w, y, par);
  } else {
    static_assert(Layout == dense::kRowMajor || (Layout == dense::kPanel3 && dense::panel_fits(K)), "unknown layout");
    constexpr int64_t kAlign = Isa::kThreadAlign;
    constexpr int64_t kFit = 131072 / (K * static_cast<int64_t>(sizeof(Wt))) / kAlign * kAlign;
    constexpr int64_t kBlock = kFit > kAlign ? kFit : kAlign;
    parallel_ranges(par, N, kAlign, int64_t{rows} * N * K, [&](int64_t b, int64_t e) {
      for (int64_t n0 = b; n0 < e; n0 += kBlock) {
        const int64_t n1 = n0 + kBlock < e ? n0 + kBlock : e;
        int32_t r = 0;
        for (; r + 4 <= rows; r += 4)
          columns<Isa, K, N, 4, Layout>(n0, n1, x + static_cast<int64_t>(r) * K, w, y + static_cast<int64_t>(r) * N);
        const float* xr = x + static_cast<int64_t>(r) * K;
        float* yr = y + static_cast<int64_t>(r) * N;
        switch (rows - r) {
          case 1: columns<Isa, K, N, 1, Layout>(n0, n1, xr, w, yr); break;
          case 2: columns<Isa, K, N, 2, Layout>(n0, n1, xr, w, yr); break;
          case 3: columns<Isa, K, N, 3, Layout>(n0, n1, xr, w, yr); break;
          default: break;
        }
      }
    });
  }
}

}  // namespace saguaro::kernels::vec::dense_matmul
