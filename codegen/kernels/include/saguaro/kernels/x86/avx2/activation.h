// Gated MLP activations (AVX2+FMA): the generic formulas with vector exp/tanh (vmath.h) in place of libm's.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "saguaro/kernels/x86/avx2/common.h"
#include "saguaro/kernels/x86/avx2/vmath.h"

namespace saguaro::kernels::x86_avx2 {

namespace activation_detail {

/// act(g)·u per lane, in the generic kernel's operation order; Act 0 = SiLU, 1 = GELU-tanh.
template <int Act>
inline __m256 gated(__m256 g, __m256 u) {
  const __m256 one = _mm256_set1_ps(1.0f);
  __m256 a;
  if constexpr (Act == 0) {
    // g * (1/(1+expf(-g))), as llama2.c.
    const __m256 e = detail::exp_ps(_mm256_sub_ps(_mm256_setzero_ps(), g));
    a = _mm256_mul_ps(g, _mm256_div_ps(one, _mm256_add_ps(one, e)));
  } else {
    // 0.5·g·(1+tanh(√(2/π)·(g+0.044715·g³))).
    const __m256 cube = _mm256_mul_ps(_mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.044715f), g), g), g);
    const __m256 inner = _mm256_mul_ps(_mm256_set1_ps(0.7978845608028654f), _mm256_add_ps(g, cube));
    a = _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), g), _mm256_add_ps(one, detail::tanh_ps(inner)));
  }
  return _mm256_mul_ps(a, u);
}

}  // namespace activation_detail

/// out[r][i] = act(gate[r][i]) * up[r][i]; Act 0 = SiLU, Act 1 = GELU-tanh. out may alias gate or up.
template <int N, int Act>
inline void gated_act_f32(int32_t rows, const float* gate, const float* up, float* out) {
  static_assert(Act == 0 || Act == 1, "activation is 0 (SiLU) or 1 (GELU-tanh)");
  const int64_t n = static_cast<int64_t>(rows) * N;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm256_storeu_ps(out + i, activation_detail::gated<Act>(_mm256_loadu_ps(gate + i), _mm256_loadu_ps(up + i)));
  }
  if (i < n) {
    const __m256i m = detail::first_lanes(static_cast<int>(n - i));
    const __m256 v = activation_detail::gated<Act>(_mm256_maskload_ps(gate + i, m), _mm256_maskload_ps(up + i, m));
    _mm256_maskstore_ps(out + i, m, v);
  }
}

}  // namespace saguaro::kernels::x86_avx2
