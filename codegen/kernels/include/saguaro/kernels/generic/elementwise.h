// Elementwise kernels (generic).
#pragma once

#include <cmath>
#include <cstdint>

namespace saguaro::kernels::generic {

/// acc[rows][D] += x[rows][D].
template <int D>
inline void add_f32(int32_t rows, float* acc, const float* x) {
  const int64_t n = static_cast<int64_t>(rows) * D;
  for (int64_t i = 0; i < n; ++i) acc[i] += x[i];
}

/// x[rows][N] = cap·tanhf(x/cap), in place (Gemma logit soft-capping).
template <int N>
inline void softcap_f32(int32_t rows, float* x, float cap) {
  const int64_t n = static_cast<int64_t>(rows) * N;
  for (int64_t i = 0; i < n; ++i) x[i] = cap * tanhf(x[i] / cap);
}

}  // namespace saguaro::kernels::generic
