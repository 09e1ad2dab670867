// RMSNorm variants (generic), in llama2.c's float operation order.
#pragma once

#include <cmath>
#include <cstdint>

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

/// Row-wise RMSNorm of x[rows][D] with weight w[D]; out may alias x.
template <int D, bool AddOne>
inline void rmsnorm_f32(int32_t rows, const float* x, const void* w, float eps, float* out) {
  const float* wf = static_cast<const float*>(w);
  for (int32_t r = 0; r < rows; ++r) {
    const int64_t o = static_cast<int64_t>(r) * D;
    rmsnorm_vec_f32<D, AddOne>(x + o, wf, eps, out + o);
  }
}

/// resid += delta, then out = rmsnorm(resid); out may alias delta but not resid.
template <int D, bool AddOne>
inline void add_rmsnorm_f32(int32_t rows, float* resid, const float* delta, const void* w, float eps,
                            float* out) {
  const float* wf = static_cast<const float*>(w);
  for (int32_t r = 0; r < rows; ++r) {
    const int64_t o = static_cast<int64_t>(r) * D;
    for (int i = 0; i < D; ++i) resid[o + i] += delta[o + i];
    rmsnorm_vec_f32<D, AddOne>(resid + o, wf, eps, out + o);
  }
}

/// In-place RMSNorm of every head vector x[rows][H][HD] with the shared weight w[HD] (q/k norm).
template <int H, int HD, bool AddOne>
inline void head_rmsnorm_f32(int32_t rows, float* x, const void* w, float eps) {
  const float* wf = static_cast<const float*>(w);
  const int64_t n = static_cast<int64_t>(rows) * H;
  for (int64_t i = 0; i < n; ++i) rmsnorm_vec_f32<HD, AddOne>(x + i * HD, wf, eps, x + i * HD);
}

}  // namespace saguaro::kernels::generic
