// RMSNorm variants (NEON). The sum of squares is an FMA reduction over 2×4 lanes (reordered against the generic
// kernel); the rest is the generic kernel's operations per element, ss=1/sqrtf(ss/D+eps); out=w*(ss*x).
#pragma once

#include <arm_neon.h>

#include <cmath>
#include <cstdint>

#include "saguaro/kernels/arm64/neon/common.h"

namespace saguaro::kernels::arm64_neon {

/// RMSNorm of one vector of length D (contract of generic::rmsnorm_vec_f32). out may alias x.
template <int D, bool AddOne>
inline void rmsnorm_vec_f32(const float* x, const float* w, float eps, float* out) {
  constexpr int kFull = D / 4 * 4;
  constexpr int kTail = D - kFull;
  // Two accumulators: consecutive FMAs into one would wait on each other's latency.
  float32x4_t a0 = vdupq_n_f32(0.0f), a1 = vdupq_n_f32(0.0f);
  int i = 0;
  for (; i + 8 <= kFull; i += 8) {
    const float32x4_t v0 = vld1q_f32(x + i), v1 = vld1q_f32(x + i + 4);
    a0 = vfmaq_f32(a0, v0, v0);
    a1 = vfmaq_f32(a1, v1, v1);
  }
  if (i < kFull) {
    const float32x4_t v = vld1q_f32(x + i);
    a0 = vfmaq_f32(a0, v, v);
  }
  if constexpr (kTail != 0) {
    const float32x4_t v = detail::load_first(x + kFull, kTail);
    a1 = vfmaq_f32(a1, v, v);
  }
  float ss = detail::hsum(vaddq_f32(a0, a1));
  ss /= D;
  ss += eps;
  ss = 1.0f / sqrtf(ss);
  const float32x4_t vs = vdupq_n_f32(ss);
  const float32x4_t one = vdupq_n_f32(1.0f);
  // Gemma stores the weight as an offset from 1.
  auto norm = [&](float32x4_t xv, float32x4_t wv) {
    if (AddOne) wv = vaddq_f32(one, wv);
    return vmulq_f32(wv, vmulq_f32(vs, xv));
  };
  for (i = 0; i < kFull; i += 4) vst1q_f32(out + i, norm(vld1q_f32(x + i), vld1q_f32(w + i)));
  if constexpr (kTail != 0) {
    const float32x4_t v = norm(detail::load_first(x + kFull, kTail), detail::load_first(w + kFull, kTail));
    detail::store_first(out + kFull, v, kTail);
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
inline void add_rmsnorm_f32(int32_t rows, float* resid, const float* delta, const void* w, float eps, float* out) {
  const float* wf = static_cast<const float*>(w);
  constexpr int kFull = D / 4 * 4;
  constexpr int kTail = D - kFull;
  for (int32_t r = 0; r < rows; ++r) {
    const int64_t o = static_cast<int64_t>(r) * D;
    float* rr = resid + o;
    const float* dr = delta + o;
    for (int i = 0; i < kFull; i += 4) vst1q_f32(rr + i, vaddq_f32(vld1q_f32(rr + i), vld1q_f32(dr + i)));
    if constexpr (kTail != 0) {
      const float32x4_t v = vaddq_f32(detail::load_first(rr + kFull, kTail), detail::load_first(dr + kFull, kTail));
      detail::store_first(rr + kFull, v, kTail);
    }
    rmsnorm_vec_f32<D, AddOne>(rr, wf, eps, out + o);
  }
}

/// In-place RMSNorm of every head vector x[rows][H][HD] with the shared weight w[HD] (q/k norm).
template <int H, int HD, bool AddOne>
inline void head_rmsnorm_f32(int32_t rows, float* x, const void* w, float eps) {
  const float* wf = static_cast<const float*>(w);
  const int64_t n = static_cast<int64_t>(rows) * H;
  for (int64_t i = 0; i < n; ++i) rmsnorm_vec_f32<HD, AddOne>(x + i * HD, wf, eps, x + i * HD);
}

}  // namespace saguaro::kernels::arm64_neon
