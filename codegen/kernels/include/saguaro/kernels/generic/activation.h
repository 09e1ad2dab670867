// Gated MLP activations (generic).
#pragma once

#include <cmath>
#include <cstdint>

namespace saguaro::kernels::generic {

/// SiLU in llama2.c's order: g * (1/(1+expf(-g))).
inline float silu_f32(float g) { return g * (1.0f / (1.0f + expf(-g))); }

/// GELU, tanh approximation (PyTorch "gelu_pytorch_tanh"): 0.5·g·(1+tanh(√(2/π)·(g+0.044715·g³))).
inline float gelu_tanh_f32(float g) {
  constexpr float kSqrt2OverPi = 0.7978845608028654f;
  constexpr float kCoeff = 0.044715f;
  return 0.5f * g * (1.0f + tanhf(kSqrt2OverPi * (g + kCoeff * g * g * g)));
}

/// out[r][i] = act(gate[r][i]) * up[r][i]; Act 0 = SiLU, Act 1 = GELU-tanh. out may alias gate or up.
template <int N, int Act>
inline void gated_act_f32(int32_t rows, const float* gate, const float* up, float* out) {
  static_assert(Act == 0 || Act == 1, "activation is 0 (SiLU) or 1 (GELU-tanh)");
  const int64_t n = static_cast<int64_t>(rows) * N;
  for (int64_t i = 0; i < n; ++i) {
    const float a = Act == 0 ? silu_f32(gate[i]) : gelu_tanh_f32(gate[i]);
    out[i] = a * up[i];
  }
}

}  // namespace saguaro::kernels::generic
