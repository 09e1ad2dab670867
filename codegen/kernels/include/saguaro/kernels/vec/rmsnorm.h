// RMSNorm of one vector over a float32 vector micro-op set F (x86_avx2::detail::F32x8, arm64_neon::detail::F32x4).
// The sum of squares is an FMA reduction over 2×F::kLanes lanes (reordered against the generic kernel); the rest is
// the generic kernel's operations per element, ss=1/sqrtf(ss/D+eps); out=w*(ss*x).
#pragma once

#include <cmath>
#include <cstdint>

#include "saguaro/kernels/rmsnorm_rows.h"

namespace saguaro::kernels::vec {

/// RMSNorm of one vector of length D (contract of generic::rmsnorm_vec_f32). out may alias x.
template <class F, int D, bool AddOne>
inline void rmsnorm_vec_f32(const float* x, const float* w, float eps, float* out) {
  using V = typename F::V;
  constexpr int L = F::kLanes;
  constexpr int kFull = D / L * L;
  constexpr int kTail = D - kFull;
  // Two accumulators: consecutive FMAs into one would wait on each other's latency.
  V a0 = F::zero(), a1 = F::zero();
  int i = 0;
  for (; i + 2 * L <= kFull; i += 2 * L) {
    const V v0 = F::load(x + i), v1 = F::load(x + i + L);
    a0 = F::fma(v0, v0, a0);
    a1 = F::fma(v1, v1, a1);
  }
  if (i < kFull) {
    const V v = F::load(x + i);
    a0 = F::fma(v, v, a0);
  }
  if constexpr (kTail != 0) {
    const V v = F::load_first(x + kFull, kTail);
    a1 = F::fma(v, v, a1);
  }
  float ss = F::hsum(F::add(a0, a1));
  ss /= D;
  ss += eps;
  ss = 1.0f / sqrtf(ss);
  const V vs = F::set1(ss);
  const V one = F::set1(1.0f);
  // Gemma stores the weight as an offset from 1.
  auto norm = [&](V xv, V wv) {
    if (AddOne) wv = F::add(one, wv);
    return F::mul(wv, F::mul(vs, xv));
  };
  for (i = 0; i < kFull; i += L) F::store(out + i, norm(F::load(x + i), F::load(w + i)));
  if constexpr (kTail != 0) {
    F::store_first(out + kFull, norm(F::load_first(x + kFull, kTail), F::load_first(w + kFull, kTail)), kTail);
  }
}

/// The vector one-vector norm and residual add (the same float additions as the generic one) for the row loops.
template <class F>
struct RmsnormOps {
  template <int D, bool AddOne>
  static void norm(const float* x, const float* w, float eps, float* out) {
    vec::rmsnorm_vec_f32<F, D, AddOne>(x, w, eps, out);
  }
  template <int D>
  static void add(float* resid, const float* delta) {
    constexpr int L = F::kLanes;
    constexpr int kFull = D / L * L;
    for (int i = 0; i < kFull; i += L) F::store(resid + i, F::add(F::load(resid + i), F::load(delta + i)));
    if constexpr (kFull < D) {
      const auto v = F::add(F::load_first(resid + kFull, D - kFull), F::load_first(delta + kFull, D - kFull));
      F::store_first(resid + kFull, v, D - kFull);
    }
  }
};

}  // namespace saguaro::kernels::vec
