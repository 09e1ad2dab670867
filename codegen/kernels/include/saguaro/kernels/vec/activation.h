// Gated MLP activations over a float32 vector micro-op set F (x86_avx2::detail::F32x8, arm64_neon::detail::F32x4):
// the generic formulas with vector exp/tanh (vec/vmath.h) in place of libm's, F::kLanes at a time; the last
// n % kLanes elements go through the same vector code on their first lanes.
#pragma once

#include <cstdint>

#include "saguaro/kernels/vec/vmath.h"

/// Defines gated_act_f32 (generic/activation.h's contract) in the enclosing ISA namespace over vec::gated_act_f32
/// with the micro-ops F.
#define SAGUARO_KERNELS_DEFINE_GATED_ACT(F)                                                                          \
  template <int N, int Act>                                                                                          \
  inline void gated_act_f32(int32_t rows, const float* gate, const float* up, float* out) {                          \
    vec::gated_act_f32<F, N, Act>(rows, gate, up, out);                                                              \
  }

namespace saguaro::kernels::vec {

/// act(g)·u per lane, in the generic kernel's operation order; Act 0 = SiLU, 1 = GELU-tanh.
template <class F, int Act>
inline typename F::V gated(typename F::V g, typename F::V u) {
  using V = typename F::V;
  const V one = F::set1(1.0f);
  V a;
  if constexpr (Act == 0) {
    // g * (1/(1+expf(-g))), as llama2.c.
    const V e = vec::exp<F>(F::neg(g));
    a = F::mul(g, F::div(one, F::add(one, e)));
  } else {
    // 0.5·g·(1+tanh(√(2/π)·(g+0.044715·g³))).
    const V cube = F::mul(F::mul(F::mul(F::set1(0.044715f), g), g), g);
    const V inner = F::mul(F::set1(0.7978845608028654f), F::add(g, cube));
    a = F::mul(F::mul(F::set1(0.5f), g), F::add(one, vec::tanh<F>(inner)));
  }
  return F::mul(a, u);
}

/// out[r][i] = act(gate[r][i]) * up[r][i]; Act 0 = SiLU, Act 1 = GELU-tanh. out may alias gate or up.
template <class F, int N, int Act>
inline void gated_act_f32(int32_t rows, const float* gate, const float* up, float* out) {
  static_assert(Act == 0 || Act == 1, "activation is 0 (SiLU) or 1 (GELU-tanh)");
  constexpr int L = F::kLanes;
  const int64_t n = static_cast<int64_t>(rows) * N;
  int64_t i = 0;
  for (; i + L <= n; i += L) F::store(out + i, vec::gated<F, Act>(F::load(gate + i), F::load(up + i)));
  if (i < n) {
    const int m = static_cast<int>(n - i);
    F::store_first(out + i, vec::gated<F, Act>(F::load_first(gate + i, m), F::load_first(up + i, m)), m);
  }
}

}  // namespace saguaro::kernels::vec
