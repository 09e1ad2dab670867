// Causal GQA attention and the KV-cache store (NEON): online_attention.h's kernels over ARMv8.0 Advanced SIMD vector
// operations. HD not a multiple of 4 uses the generic kernels. The cache holds float or binary16 (FCVTL converts
// four values exactly); kv_store_f32 into an f16 cache rounds with FCVTN (round to nearest even, bit for bit as the
// generic kernel), into an f32 cache it is the generic copy (which the compiler vectorizes). No rows are requested
// ahead (the requests are tuned on x86; no ARM timing exists).
#pragma once

#include <arm_neon.h>

#include <cstdint>

#include "saguaro/kernels/arm64/neon/common.h"
#include "saguaro/kernels/arm64/neon/vmath.h"
#include "saguaro/kernels/online_attention.h"
#include "saguaro/kernels/parallel.h"

namespace saguaro::kernels::arm64_neon {

namespace attention_detail {

/// The vector operations of online_attention.h on 4-lane NEON vectors.
struct Ops {
  using V = float32x4_t;
  static constexpr int kLanes = 4;
  static V zero() { return vdupq_n_f32(0.0f); }
  static V set1(float x) { return vdupq_n_f32(x); }
  static V load(const float* p) { return vld1q_f32(p); }
  static V load(const uint16_t* p) { return detail::load4(p); }
  static void store(float* p, V x) { vst1q_f32(p, x); }
  static V add(V a, V b) { return vaddq_f32(a, b); }
  static V sub(V a, V b) { return vsubq_f32(a, b); }
  static V mul(V a, V b) { return vmulq_f32(a, b); }
  static V div(V a, V b) { return vdivq_f32(a, b); }
  static V max(V a, V b) { return vmaxq_f32(a, b); }
  static V fma(V a, V b, V c) { return vfmaq_f32(c, a, b); }
  static V exp(V x) { return detail::exp_ps(x); }
  static V tanh(V x) { return detail::tanh_ps(x); }
  static V first(V x, int n, V fill) { return vbslq_f32(detail::first_lanes(n), x, fill); }
  static float hsum(V x) { return detail::hsum(x); }
  static float hmax(V x) { return vmaxvq_f32(x); }
  template <int n>
  static void hsums(const V* x, float* out) {
    detail::hsums<n>(x, out);
  }
  static void prefetch_l1(const void*, int64_t) {}
  static void prefetch_l2(const void*, int64_t) {}
  static void to_half(uint16_t* dst, const float* src) {
    vst1_u16(dst, vreinterpret_u16_f16(vcvt_f16_f32(vld1q_f32(src))));
  }

  /// acc[m] = acc[m]·corr[m] + Σ_u e[m][u]·v_u, v_u = v + u·Ld, CW vectors of HD at a time for all M heads: up to
  /// one 64-byte line of a V row per pass, with at most 16 accumulators (M × CW) live in registers.
  template <int HD, int M, int Ld, class KV>
  static void weigh_values(float (*acc)[HD], float (*e)[online_attention::kBlock], const float* corr, const KV* v,
                           int nt, const KV*) {
    constexpr int C = HD / 4;
    constexpr int CW = C % 4 == 0 && M <= 4 ? 4 : (C % 2 == 0 && M <= 8 ? 2 : 1);
    for (int c = 0; c < C; c += CW) {
      float32x4_t a[M][CW];
      #pragma GCC unroll 16
      for (int m = 0; m < M; ++m) {
        const float32x4_t cm = vdupq_n_f32(corr[m]);
        #pragma GCC unroll 4
        for (int w = 0; w < CW; ++w) a[m][w] = vmulq_f32(vld1q_f32(acc[m] + 4 * (c + w)), cm);
      }
      const KV* vu = v + 4 * c;
      for (int u = 0; u < nt; ++u, vu += Ld) {
        float32x4_t vv[CW];
        #pragma GCC unroll 4
        for (int w = 0; w < CW; ++w) vv[w] = detail::load4(vu + 4 * w);
        #pragma GCC unroll 16
        for (int m = 0; m < M; ++m) {
          const float eu = e[m][u];
          #pragma GCC unroll 4
          for (int w = 0; w < CW; ++w) a[m][w] = vfmaq_n_f32(a[m][w], vv[w], eu);
        }
      }
      #pragma GCC unroll 16
      for (int m = 0; m < M; ++m)
        #pragma GCC unroll 4
        for (int w = 0; w < CW; ++w) vst1q_f32(acc[m] + 4 * (c + w), a[m][w]);
    }
  }
};

}  // namespace attention_detail

SAGUARO_KERNELS_DEFINE_ONLINE_ATTENTION(attention_detail::Ops)

}  // namespace saguaro::kernels::arm64_neon
