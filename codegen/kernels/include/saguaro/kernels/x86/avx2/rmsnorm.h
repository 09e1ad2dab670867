// RMSNorm variants (AVX2+FMA). The sum of squares is an FMA reduction over 8 lanes (reordered against the
// generic kernel); the rest is the generic kernel's operations per element, ss=1/sqrtf(ss/D+eps); out=w*(ss*x).
#pragma once

#include <immintrin.h>

#include <cmath>
#include <cstdint>

#include "saguaro/kernels/x86/avx2/common.h"

namespace saguaro::kernels::x86_avx2 {

/// RMSNorm of one vector of length D (contract of generic::rmsnorm_vec_f32). out may alias x.
template <int D, bool AddOne>
inline void rmsnorm_vec_f32(const float* x, const float* w, float eps, float* out) {
  constexpr int kFull = D / 8 * 8;
  [[maybe_unused]] const __m256i tail = detail::first_lanes(D - kFull);
  __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
  int i = 0;
  for (; i + 16 <= kFull; i += 16) {
    const __m256 v0 = _mm256_loadu_ps(x + i), v1 = _mm256_loadu_ps(x + i + 8);
    a0 = _mm256_fmadd_ps(v0, v0, a0);
    a1 = _mm256_fmadd_ps(v1, v1, a1);
  }
  if (i < kFull) {
    const __m256 v = _mm256_loadu_ps(x + i);
    a0 = _mm256_fmadd_ps(v, v, a0);
  }
  if constexpr (kFull < D) {
    const __m256 v = _mm256_maskload_ps(x + kFull, tail);
    a1 = _mm256_fmadd_ps(v, v, a1);
  }
  float ss = detail::hsum(_mm256_add_ps(a0, a1));
  ss /= D;
  ss += eps;
  ss = 1.0f / sqrtf(ss);
  const __m256 vs = _mm256_set1_ps(ss);
  const __m256 one = _mm256_set1_ps(1.0f);
  // Gemma stores the weight as an offset from 1.
  auto norm = [&](__m256 xv, __m256 wv) {
    if (AddOne) wv = _mm256_add_ps(one, wv);
    return _mm256_mul_ps(wv, _mm256_mul_ps(vs, xv));
  };
  for (i = 0; i < kFull; i += 8) _mm256_storeu_ps(out + i, norm(_mm256_loadu_ps(x + i), _mm256_loadu_ps(w + i)));
  if constexpr (kFull < D) {
    const __m256 v = norm(_mm256_maskload_ps(x + kFull, tail), _mm256_maskload_ps(w + kFull, tail));
    _mm256_maskstore_ps(out + kFull, tail, v);
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
  constexpr int kFull = D / 8 * 8;
  [[maybe_unused]] const __m256i tail = detail::first_lanes(D - kFull);
  for (int32_t r = 0; r < rows; ++r) {
    const int64_t o = static_cast<int64_t>(r) * D;
    float* rr = resid + o;
    const float* dr = delta + o;
    for (int i = 0; i < kFull; i += 8)
      _mm256_storeu_ps(rr + i, _mm256_add_ps(_mm256_loadu_ps(rr + i), _mm256_loadu_ps(dr + i)));
    if constexpr (kFull < D) {
      const __m256 v = _mm256_add_ps(_mm256_maskload_ps(rr + kFull, tail), _mm256_maskload_ps(dr + kFull, tail));
      _mm256_maskstore_ps(rr + kFull, tail, v);
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

}  // namespace saguaro::kernels::x86_avx2
