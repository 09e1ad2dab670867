// Dense float32 matrix products (generic), accumulated in k order like llama2.c.
#pragma once

#include <cstdint>

namespace saguaro::kernels::generic {

/// y[r][n] = Σ_k x[r][k]·W[n][k] for W float32 [N][K]; one float accumulator per output, k ascending.
template <int K, int N>
inline void matmul_f32(int32_t rows, const float* x, const void* W, float* y) {
  const float* w = static_cast<const float*>(W);
  for (int32_t r = 0; r < rows; ++r) {
    const float* xr = x + static_cast<int64_t>(r) * K;
    float* yr = y + static_cast<int64_t>(r) * N;
    for (int n = 0; n < N; ++n) {
      const float* wn = w + static_cast<int64_t>(n) * K;
      float val = 0.0f;
      for (int k = 0; k < K; ++k) val += wn[k] * xr[k];
      yr[n] = val;
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
