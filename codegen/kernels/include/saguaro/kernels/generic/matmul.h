// Dense float32 matrix products (generic), accumulated in k order like llama2.c.
#pragma once

#include <cstdint>

namespace saguaro::kernels::generic {

/// y[r][n] = Σ_k x[r][k]·W[n][k] for W float32 [N][K]; one float accumulator per output, k ascending.
/// Weight rows are the outer loop so a prefill streams W once for all its rows (four at a time);
/// each output still sums in k order, so results equal the one-row-at-a-time product bit for bit.
template <int K, int N>
inline void matmul_f32(int32_t rows, const float* x, const void* W, float* y) {
  const float* w = static_cast<const float*>(W);
  for (int n = 0; n < N; ++n) {
    const float* wn = w + static_cast<int64_t>(n) * K;
    int32_t r = 0;
    for (; r + 4 <= rows; r += 4) {
      const float* x0 = x + static_cast<int64_t>(r) * K;
      const float *x1 = x0 + K, *x2 = x1 + K, *x3 = x2 + K;
      float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
      for (int k = 0; k < K; ++k) {
        a0 += wn[k] * x0[k];
        a1 += wn[k] * x1[k];
        a2 += wn[k] * x2[k];
        a3 += wn[k] * x3[k];
      }
      y[static_cast<int64_t>(r) * N + n] = a0;
      y[static_cast<int64_t>(r + 1) * N + n] = a1;
      y[static_cast<int64_t>(r + 2) * N + n] = a2;
      y[static_cast<int64_t>(r + 3) * N + n] = a3;
    }
    for (; r < rows; ++r) {
      const float* xr = x + static_cast<int64_t>(r) * K;
      float val = 0.0f;
      for (int k = 0; k < K; ++k) val += wn[k] * xr[k];
      y[static_cast<int64_t>(r) * N + n] = val;
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

}  // namespace saguaro::kernels::generic
