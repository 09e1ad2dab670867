// The RMSNorm kernels' row loops, written once over a kernel set's one-vector norm and residual add (`Norm`):
// generic::RmsnormOps, vec::RmsnormOps<F> for the SIMD sets. Contracts: generic/rmsnorm.h.
#pragma once

#include <cstdint>

/// Defines rmsnorm_f32, add_rmsnorm_f32 and head_rmsnorm_f32 (generic/rmsnorm.h's contracts) in the enclosing
/// namespace over rmsnorm_rows:: with `Norm`, so that every kernel set has the same signatures.
#define SAGUARO_KERNELS_DEFINE_RMSNORMS(Norm)                                                                        \
  template <int D, bool AddOne>                                                                                      \
  inline void rmsnorm_f32(int32_t rows, const float* x, const void* w, float eps, float* out) {                      \
    rmsnorm_rows::rmsnorm_f32<Norm, D, AddOne>(rows, x, w, eps, out);                                                \
  }                                                                                                                  \
  template <int D, bool AddOne>                                                                                      \
  inline void add_rmsnorm_f32(int32_t rows, float* resid, const float* delta, const void* w, float eps,              \
                              float* out) {                                                                          \
    rmsnorm_rows::add_rmsnorm_f32<Norm, D, AddOne>(rows, resid, delta, w, eps, out);                                 \
  }                                                                                                                  \
  template <int H, int HD, bool AddOne>                                                                              \
  inline void head_rmsnorm_f32(int32_t rows, float* x, const void* w, float eps) {                                   \
    rmsnorm_rows::head_rmsnorm_f32<Norm, H, HD, AddOne>(rows, x, w, eps);                                            \
  }

namespace saguaro::kernels::rmsnorm_rows {

// `Norm` supplies:
//   Norm::norm<D, AddOne>(x, w, eps, out)  RMSNorm of one vector of length D (generic::rmsnorm_vec_f32's contract)
//   Norm::add<D>(resid, delta)              resid[i] += delta[i] for i < D

/// Row-wise RMSNorm of x[rows][D] with weight w[D]; out may alias x.
template <class Norm, int D, bool AddOne>
inline void rmsnorm_f32(int32_t rows, const float* x, const void* w, float eps, float* out) {
  const float* wf = static_cast<const float*>(w);
  for (int32_t r = 0; r < rows; ++r) {
    const int64_t o = static_cast<int64_t>(r) * D;
    Norm::template norm<D, AddOne>(x + o, wf, eps, out + o);
  }
}

/// resid += delta, then out = rmsnorm(resid), row by row; out may alias delta but not resid.
template <class Norm, int D, bool AddOne>
inline void add_rmsnorm_f32(int32_t rows, float* resid, const float* delta, const void* w, float eps, float* out) {
  const float* wf = static_cast<const float*>(w);
  for (int32_t r = 0; r < rows; ++r) {
    const int64_t o = static_cast<int64_t>(r) * D;
    Norm::template add<D>(resid + o, delta + o);
    Norm::template norm<D, AddOne>(resid + o, wf, eps, out + o);
  }
}

/// In-place RMSNorm of every head vector x[rows][H][HD] with the shared weight w[HD] (q/k norm).
template <class Norm, int H, int HD, bool AddOne>
inline void head_rmsnorm_f32(int32_t rows, float* x, const void* w, float eps) {
  const float* wf = static_cast<const float*>(w);
  const int64_t n = static_cast<int64_t>(rows) * H;
  for (int64_t i = 0; i < n; ++i) Norm::template norm<HD, AddOne>(x + i * HD, wf, eps, x + i * HD);
}

}  // namespace saguaro::kernels::rmsnorm_rows
