// Causal GQA attention and the KV-cache store (NEON): online_attention.h's kernels over ARMv8.0 Advanced SIMD vector
// operations. HD not a multiple of 4 uses the generic kernels. The cache holds float or binary16 (FCVTL converts
// four values exactly); kv_store_f32 into an f16 cache rounds with FCVTN (round to nearest even, bit for bit as the
// generic kernel), into an f32 cache it is the generic copy (which the compiler vectorizes). No rows are requested
// ahead (the requests are tuned on x86; no ARM timing exists).
#pragma once

#include <arm_neon.h>

#include <cstdint>

#include "saguaro/kernels/arm64/neon/common.h"
#include "saguaro/kernels/online_attention.h"

namespace saguaro::kernels::arm64_neon {

namespace detail {

/// online_attention.h's vector operations: the shared micro-ops of F32x4 and the few only attention uses.
struct AttentionOps : F32x4 {
  static V first(V x, int n, V fill) { return vbslq_f32(detail::first_lanes(n), x, fill); }
  static float hmax(V x) { return vmaxvq_f32(x); }
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

}  // namespace detail

SAGUARO_KERNELS_DEFINE_ONLINE_ATTENTION(detail::AttentionOps)

}  // namespace saguaro::kernels::arm64_neon
