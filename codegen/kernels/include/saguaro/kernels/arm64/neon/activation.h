// Gated MLP activations (NEON): the generic formulas with vector exp/tanh (vmath.h) in place of libm's, 4 lanes
// at a time; the last n % 4 elements go through the same vector code via a zero-padded copy.
#pragma once

#include <arm_neon.h>

#include <cstdint>

#include "saguaro/kernels/arm64/neon/common.h"
#include "saguaro/kernels/arm64/neon/vmath.h"

namespace saguaro::kernels::arm64_neon {

namespace activation_detail {

/// act(g)·u per lane, in the generic kernel's operation order; Act 0 = SiLU, 1 = GELU-tanh.
template <int Act>
inline float32x4_t gated(float32x4_t g, float32x4_t u) {
  const float32x4_t one = vdupq_n_f32(1.0f);
  float32x4_t a;
  if constexpr (Act == 0) {
    // g * (1/(1+expf(-g))), as llama2.c.
    const float32x4_t e = detail::exp_ps(vnegq_f32(g));
    a = vmulq_f32(g, vdivq_f32(one, vaddq_f32(one, e)));
  } else {
    // 0.5·g·(1+tanh(√(2/π)·(g+0.044715·g³))).
    const float32x4_t cube = vmulq_f32(vmulq_f32(vmulq_f32(vdupq_n_f32(0.044715f), g), g), g);
    const float32x4_t inner = vmulq_f32(vdupq_n_f32(0.7978845608028654f), vaddq_f32(g, cube));
    a = vmulq_f32(vmulq_f32(vdupq_n_f32(0.5f), g), vaddq_f32(one, detail::tanh_ps(inner)));
  }
  return vmulq_f32(a, u);
}

}  // namespace activation_detail

/// out[r][i] = act(gate[r][i]) * up[r][i]; Act 0 = SiLU, Act 1 = GELU-tanh. out may alias gate or up.
template <int N, int Act>
inline void gated_act_f32(int32_t rows, const float* gate, const float* up, float* out) {
  static_assert(Act == 0 || Act == 1, "activation is 0 (SiLU) or 1 (GELU-tanh)");
  const int64_t n = static_cast<int64_t>(rows) * N;
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    vst1q_f32(out + i, activation_detail::gated<Act>(vld1q_f32(gate + i), vld1q_f32(up + i)));
  }
  if (i < n) {
    const int m = static_cast<int>(n - i);
    const float32x4_t v =
        activation_detail::gated<Act>(detail::load_first(gate + i, m), detail::load_first(up + i, m));
    detail::store_first(out + i, v, m);
  }
}

}  // namespace saguaro::kernels::arm64_neon
