// Causal GQA attention and the KV-cache store (AVX2+FMA): online_attention.h's kernels over AVX2 vector operations.
// HD not a multiple of 8 uses the generic kernels. The cache holds float or binary16 (F16C converts eight values per
// instruction, exactly); kv_store_f32 into an f16 cache rounds with F16C, bit for bit as the generic kernel, into
// an f32 cache it is the generic copy (which the compiler vectorizes).
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "saguaro/kernels/online_attention.h"
#include "saguaro/kernels/x86/avx2/common.h"

namespace saguaro::kernels::x86_avx2 {

namespace detail {

/// online_attention.h's vector operations: the shared micro-ops of F32x8 and the few only attention uses.
struct AttentionOps : F32x8 {
  static V first(V x, int n, V fill) { return _mm256_blendv_ps(fill, x, _mm256_castsi256_ps(detail::first_lanes(n))); }
  static float hmax(V x) {
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    m = _mm_max_ss(m, _mm_movehdup_ps(m));
    return _mm_cvtss_f32(m);
  }
  static void to_half(uint16_t* dst, const float* src) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), _mm256_cvtps_ph(_mm256_loadu_ps(src), _MM_FROUND_TO_NEAREST_INT));
  }

  /// acc[m] = acc[m]·corr[m] + Σ_u e[m][u]·v_u, v_u = v + u·Ld: the block's V rows are read once, in order
  /// (contiguous ones requested 8 rows ahead), and each accumulator vector (in L1) takes four positions per load and
  /// store.
  template <int HD, int M, int Ld, class KV>
  static void weigh_values(float (*acc)[HD], float (*e)[online_attention::kBlock], const float* corr, const KV* v,
                           int nt, const KV* vnext) {
    constexpr int C = HD / 8;
    constexpr int64_t kStepBytes = int64_t{4} * HD * sizeof(KV);
    for (int m = 0; m < M; ++m) {
      const __m256 cm = _mm256_set1_ps(corr[m]);
      for (int c = 0; c < C; ++c) _mm256_storeu_ps(acc[m] + 8 * c, _mm256_mul_ps(_mm256_loadu_ps(acc[m] + 8 * c), cm));
    }
    int u = 0;
    for (; u + 4 <= nt; u += 4) {
      const KV* vu = v + static_cast<int64_t>(u) * Ld;
      if constexpr (Ld == HD) {
        prefetch_l1(vu + 8 * HD, kStepBytes);
        if (vnext) prefetch_l2(vnext + static_cast<int64_t>(u) * HD, kStepBytes);
      }
      __m256 w[M][4];
      #pragma GCC unroll 16
      for (int m = 0; m < M; ++m)
        #pragma GCC unroll 4
        for (int z = 0; z < 4; ++z) w[m][z] = _mm256_broadcast_ss(e[m] + u + z);
      #pragma GCC unroll 16
      for (int c = 0; c < C; ++c) {
        __m256 vv[4];
        #pragma GCC unroll 4
        for (int z = 0; z < 4; ++z) vv[z] = detail::load8(vu + z * Ld + 8 * c);
        #pragma GCC unroll 16
        for (int m = 0; m < M; ++m) {
          __m256 a = _mm256_loadu_ps(acc[m] + 8 * c);
          #pragma GCC unroll 4
          for (int z = 0; z < 4; ++z) a = _mm256_fmadd_ps(w[m][z], vv[z], a);
          _mm256_storeu_ps(acc[m] + 8 * c, a);
        }
      }
    }
    for (; u < nt; ++u) {
      const KV* vu = v + static_cast<int64_t>(u) * Ld;
      for (int c = 0; c < C; ++c) {
        const __m256 v0 = detail::load8(vu + 8 * c);
        for (int m = 0; m < M; ++m)
          _mm256_storeu_ps(acc[m] + 8 * c,
                           _mm256_fmadd_ps(_mm256_broadcast_ss(e[m] + u), v0, _mm256_loadu_ps(acc[m] + 8 * c)));
      }
    }
  }
};

}  // namespace detail

SAGUARO_KERNELS_DEFINE_ONLINE_ATTENTION(detail::AttentionOps)

}  // namespace saguaro::kernels::x86_avx2
