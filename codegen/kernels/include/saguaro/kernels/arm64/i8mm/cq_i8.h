// Codebook-quantized (CQ) kernels on int8 activations (ARMv8.6 i8mm, FEAT_I8MM, with dotprod): prefill with SMMLA.
// Contracts and numerics: generic/cq_i8.h; bit for bit equal to it.
//
// SMMLA multiplies a 2×8 block of int8 by an 8×2 one into a 2×2 int32 tile, exactly: two weight rows times two
// activation rows over 8 codes. Prefill decodes four weight rows as two pairs, interleaved in steps of 8 codes
// (16 bytes: 8 codes of row 2p, then the same 8 of row 2p+1), so one load gives SMMLA's weight operand; the two
// activation rows are interleaved on the fly (ZIP1/ZIP2 of 64-bit halves). Decode (fewer than 4 rows) has one
// activation row, half of every SMMLA would be wasted: it is the dotprod GEMV (arm64/dotprod/cq_i8.h).
// Decoding, tail handling and the float steps are arm64/neon/cq_i8.h's. Compiled only when the target enables
// i8mm and dotprod (-march=armv8.2-a+dotprod+i8mm); kernels.h then selects these kernels.
#pragma once

#include "saguaro/kernels/arm64/dotprod/cq_i8.h"

#if defined(__ARM_FEATURE_MATMUL_INT8) && defined(__ARM_FEATURE_DOTPROD)
#define SAGUARO_KERNELS_ARM64_I8MM 1

#include <arm_neon.h>

#include <cstdint>

namespace saguaro::kernels::arm64_i8mm {

namespace cq_i8_detail {

namespace neon = arm64_neon::cq_i8_detail;

/// Prefill: weight rows [n0, n0+4) (one panel) decoded into w as two interleaved pairs (pair p at w + 2p·Kp; codes
/// k … k+15 at offset 2k: 8 codes of row 2p, 8 of row 2p+1, then the next 8 of each), applied to all rows, two at a
/// time; tile lanes (row 2p, x_r), (row 2p, x_r+1), (row 2p+1, x_r), (row 2p+1, x_r+1).
template <int K, int N, int Bits, int Layout>
inline void gemm_block(int32_t rows, const void* xq, const uint8_t* codes, const uint16_t* norms, int64_t n0,
                       int8x16_t lut, float scb, int8_t* w, float* y) {
  constexpr int g = cq::group_size(K);
  constexpr int G = cq::groups(K);
  constexpr int Kp = cq::padded_k(K);
  neon::decode_rows4<K, N, Bits, Layout>(codes, n0, lut, [&](int k, const int8x16_t* wv) {
    for (int p = 0; p < 2; ++p) {
      const int64x2_t w0 = vreinterpretq_s64_s8(wv[2 * p]), w1 = vreinterpretq_s64_s8(wv[2 * p + 1]);
      vst1q_s8(w + 2 * p * Kp + 2 * k, vreinterpretq_s8_s64(vzip1q_s64(w0, w1)));
      vst1q_s8(w + 2 * p * Kp + 2 * k + 16, vreinterpretq_s8_s64(vzip2q_s64(w0, w1)));
    }
  });
  float sigT[G * 4];
  cq_i8_loops::norms_transposed<neon::HalfNorms, N, G, 4, Layout>(norms, n0, sigT);
  for (int32_t r = 0; r < rows; r += 2) {
    // An odd last row pairs with itself; only its first lane of each row pair is kept.
    const neon::ActRow<K> x0(xq, r), x1(xq, r + 1 < rows ? r + 1 : r);
    float32x4_t acc0 = vdupq_n_f32(0.0f), acc1 = vdupq_n_f32(0.0f);  // row r, row r+1: columns n0 … n0+3
    for (int j = 0; j < G; ++j) {
      int32x4_t d0 = vdupq_n_s32(0), d1 = vdupq_n_s32(0);  // weight pairs 0 and 1
      #pragma GCC unroll 8
      for (int u = 0; u < g / 16; ++u) {
        const int k = j * g + 16 * u;
        const int64x2_t a0 = vreinterpretq_s64_s8(vld1q_s8(x0.q + k));
        const int64x2_t a1 = vreinterpretq_s64_s8(vld1q_s8(x1.q + k));
        const int8x16_t lo = vreinterpretq_s8_s64(vzip1q_s64(a0, a1));
        const int8x16_t hi = vreinterpretq_s8_s64(vzip2q_s64(a0, a1));
        d0 = vmmlaq_s32(d0, vld1q_s8(w + 2 * k), lo);
        d0 = vmmlaq_s32(d0, vld1q_s8(w + 2 * k + 16), hi);
        d1 = vmmlaq_s32(d1, vld1q_s8(w + 2 * Kp + 2 * k), lo);
        d1 = vmmlaq_s32(d1, vld1q_s8(w + 2 * Kp + 2 * k + 16), hi);
      }
      const float32x4_t sig = vld1q_f32(sigT + 4 * j);
      acc0 = neon::accumulate(acc0, sig, x0.scale[j] * scb, vuzp1q_s32(d0, d1));
      acc1 = neon::accumulate(acc1, sig, x1.scale[j] * scb, vuzp2q_s32(d0, d1));
    }
    vst1q_f32(y + static_cast<int64_t>(r) * N + n0, acc0);
    if (r + 1 < rows) vst1q_f32(y + static_cast<int64_t>(r + 1) * N + n0, acc1);
  }
}

/// The i8mm operations: SDOT for the decode GEMV, the SMMLA prefill block above.
struct I8mmOps {
  static inline int32x4_t dot(int32x4_t d, int8x16_t w, int8x16_t a) {
    return arm64_dotprod::cq_i8_detail::DotprodOps::dot(d, w, a);
  }
  template <int K, int N, int Bits, int Layout>
  static inline void block(int32_t rows, const void* xq, const uint8_t* codes, const uint16_t* norms, int64_t n0,
                           int8x16_t lut, float scb, int8_t* w, float* y) {
    gemm_block<K, N, Bits, Layout>(rows, xq, codes, norms, n0, lut, scb, w, y);
  }
};

}  // namespace cq_i8_detail

// cq_quantize_act_i8 (the NEON one: no products), cq_matmul_i8, cq_matmul2_i8, cq_matmul3_i8.
SAGUARO_KERNELS_DEFINE_CQ_I8(arm64_neon::cq_i8_detail::Kernels<cq_i8_detail::I8mmOps>)

}  // namespace saguaro::kernels::arm64_i8mm

#endif  // __ARM_FEATURE_MATMUL_INT8 && __ARM_FEATURE_DOTPROD
