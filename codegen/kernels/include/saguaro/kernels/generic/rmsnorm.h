// RMSNorm variants (generic), in llama2.c's float operation order.
#pragma once

#include <cmath>
#include <cstdint>

#include "saguaro/kernels/rmsnorm_rows.h"

namespace saguaro::kernels::generic {

/// RMSNorm of one vector of length D: ss=Σx²; ss/=D; ss+=eps; ss=1/sqrtf(ss); out=w*(ss*x). out may alias x.
template <int D, bool AddOne>
inline void rmsnorm_vec_f32(const float* x, const float* w, float eps, float* out) {
  float ss = 0.0f;
  for (int i = 0; i < D; ++i) ss += x[i] * x[i];
  ss /= D;
  ss += eps;
  ss = 1.0f / sqrtf(ss);
  for (int i = 0; i < D; ++i) {
    // Gemma stores the weight as an offset from 1.
    const float wi = AddOne ? 1.0f + w[i] : w[i];
    out[i] = wi * (ss * x[i]);
  }
}

/// The generic one-vector norm and residual add for the row loops (rmsnorm_rows.h).
struct RmsnormOps {
  template <int D, bool AddOne>
  static void norm(const float* x, const float* w, float eps, float* out) {
    rmsnorm_vec_f32<D, AddOne>(x, w, eps, out);
  }
  template <int D>
  static void add(float* resid, const float* delta) {
    for (int i = 0; i < D; ++i) resid[i] += delta[i];
  }
};

// rmsnorm_f32, add_rmsnorm_f32, head_rmsnorm_f32.
SAGUARO_KERNELS_DEFINE_RMSNORMS(RmsnormOps)

}  // namespace saguaro::kernels::generic
