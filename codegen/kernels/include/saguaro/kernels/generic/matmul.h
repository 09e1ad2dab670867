// Dense matrix products with float32 or binary16 weights (generic), accumulated in float in k order like llama2.c.
#pragma once

#include <cstdint>

#include "saguaro/kernels/dense_layout.h"
#include "saguaro/kernels/generic/element.h"
#include "saguaro/kernels/generic/rows.h"
#include "saguaro/kernels/parallel.h"

/// Defines the dense product entry points in the enclosing namespace (generic, x86_avx2, arm64_neon) over its
/// matmul_detail::matmul<K, N, Layout>(rows, x, w, y, par), w a const float* or const uint16_t* (binary16 bits):
///   matmul_f32<K, N, Layout>(rows, x, W, y, par = nullptr), W float32 [N][K] stored in `Layout`
///   (dense_layout.h; row-major by default): y[r][n] = Σ_k x[r][k]·W[n][k];
///   matmul_f16<K, N, Layout>(rows, x, W, y, par = nullptr), W binary16 [N][K], the same;
///   logits_f32 / logits_f16<K, N, Layout>(rows, all, x, W, y, par = nullptr): the output projection, all rows
///   when `all`, else only the last row of x into y[0..N).
/// One definition, so that every ISA set has the same signatures (docs/internals.md, "Kernels").
#define SAGUARO_KERNELS_DEFINE_DENSE_MATMULS()                                                                  \
  template <int K, int N, int Layout = dense::kRowMajor>                                                        \
  inline void matmul_f32(int32_t rows, const float* x, const void* W, float* y, const Parallel* par = nullptr) { \
    matmul_detail::matmul<K, N, Layout>(rows, x, static_cast<const float*>(W), y, par);                         \
  }                                                                                                             \
  template <int K, int N, int Layout = dense::kRowMajor>                                                        \
  inline void matmul_f16(int32_t rows, const float* x, const void* W, float* y, const Parallel* par = nullptr) { \
    matmul_detail::matmul<K, N, Layout>(rows, x, static_cast<const uint16_t*>(W), y, par);                      \
  }                                                                                                             \
  template <int K, int N, int Layout = dense::kRowMajor>                                                        \
  inline void logits_f32(int32_t rows, bool all, const float* x, const void* W, float* y,                       \
                         const Parallel* par = nullptr) {                                                       \
    matmul_f32<K, N, Layout>(all ? rows : 1, all ? x : x + static_cast<int64_t>(rows - 1) * K, W, y, par);      \
  }                                                                                                             \
  template <int K, int N, int Layout = dense::kRowMajor>                                                        \
  inline void logits_f16(int32_t rows, bool all, const float* x, const void* W, float* y,                       \
                         const Parallel* par = nullptr) {                                                       \
    matmul_f16<K, N, Layout>(all ? rows : 1, all ? x : x + static_cast<int64_t>(rows - 1) * K, W, y, par);      \
  }

namespace saguaro::kernels::generic {

namespace matmul_detail {

/// y[r][n] = Σ_k x[r][k]·w[n][k] for w [N][K] of element type Wt (element.h) stored in `Layout` (dense_layout.h);
/// one float accumulator per output, k ascending. Weight rows are the outer loop so a prefill streams w once for
/// all its rows (four at a time); each output still sums in k order, so results equal the one-row-at-a-time
/// product bit for bit, in every layout. Output columns are split over `par`'s threads; a column's code does not
/// depend on its range.
template <int K, int N, int Layout, class Wt>
inline void matmul(int32_t rows, const float* x, const Wt* w, float* y, const Parallel* par) {
  parallel_ranges(par, N, 8, int64_t{rows} * N * K, [&](int64_t n0, int64_t n1) {
    for (int64_t n = n0; n < n1; ++n) {
      auto wk = [&](int k) { return load_float(w + dense::offset(Layout, N, K, n, k)); };
      rows_by_four<N>(rows, x, K, n, y, [&](auto kR, const float* const* xs, float* a) {
        constexpr int R = decltype(kR)::value;
        for (int k = 0; k < K; ++k) {
          const float v = wk(k);
          #pragma GCC unroll 4
          for (int q = 0; q < R; ++q) a[q] += v * xs[q][k];
        }
      });
    }
  });
}

}  // namespace matmul_detail

SAGUARO_KERNELS_DEFINE_DENSE_MATMULS()

}  // namespace saguaro::kernels::generic
