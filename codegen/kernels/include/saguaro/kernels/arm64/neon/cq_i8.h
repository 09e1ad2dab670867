// Codebook-quantized (CQ) kernels on int8 activations (NEON, ARMv8.0): activation quantization and the integer
// codebook matmul. Contracts and numerics: generic/cq_i8.h; this file equals it bit for bit.
//
// Codes in the planar layouts (cq::kLayoutPlanar, cq::kLayoutPlanarPanel8) decode 16 at a time into byte indices
// with one load, a shift and a mask; 1-bit codes and the high bits of 3-bit codes spread two bytes over 16 lanes
// and test one bit per lane (CMTST). TBL looks the indices up in the codebook as signed bytes (cq::int8_codebook,
// −64…64). Products: SMULL + SMLAL2 add two w·q per 16-bit lane (|sum| <= 2·64·128 = 2^14, exact), SADALP widens
// them into int32 lanes, so every group's dot is exact in int32 and any order of the integer sums gives the same
// value. The float steps are the generic kernel's: t = (scale_j·s_cb)·float(dot_j), acc = acc + σ_j·t, one rounding
// each (no FMA: the kernels compile with -ffp-contract=off), groups in j order.
//
// Decode (fewer than 4 rows) streams the codes once, eight weight rows at a time. Prefill decodes four weight rows
// into an L1 buffer of bytes once and applies them to the activation rows two at a time. The row and column loops
// around these tiles are cq_i8_loops.h's (Kernels is its micro-kernel). The dotprod and i8mm sets
// (arm64/dotprod/cq_i8.h, arm64/i8mm/cq_i8.h) reuse this decoding and tiling through the `Ops` parameter: they
// replace the product (SDOT) and the prefill block (SMMLA). Layouts or group sizes without a vector decoder here go
// to the generic kernel.
#pragma once

#include <arm_neon.h>

#include <cstdint>

#include "saguaro/kernels/arm64/neon/common.h"
#include "saguaro/kernels/cq_format.h"
#include "saguaro/kernels/cq_i8_loops.h"

namespace saguaro::kernels::arm64_neon {

namespace cq_i8_detail {

using cq_i8_loops::ActRow;
using cq_i8_loops::kRowStride;

/// Lane i (of 16) all-ones where bit i of the LSB bit stream at p (2 bytes) is set, else zero.
inline uint8x16_t bit_lanes(const uint8_t* p) {
  static constexpr uint8_t kBit[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
  return vtstq_u8(vcombine_u8(vdup_n_u8(p[0]), vdup_n_u8(p[1])), vld1q_u8(kBit));
}

/// Codes 16u … 16u+15 of a group as byte indices (Kernels::kVectorDecode<g, Bits, Layout> holds).
template <int Bits>
inline uint8x16_t code_indices(const uint8_t* group, int u) {
  if constexpr (Bits == 4) {  // 64-code chunks of 32 bytes: codes 0…31 in the low nibbles, 32…63 in the high ones
    const uint8x16_t v = vld1q_u8(group + (u / 4) * 32 + (u % 2) * 16);
    return (u / 2) % 2 ? vshrq_n_u8(v, 4) : vandq_u8(v, vdupq_n_u8(0x0F));
  } else if constexpr (Bits == 1) {
    return vandq_u8(bit_lanes(group + 2 * u), vdupq_n_u8(1));
  } else {  // 128-code chunks: 32 bytes of 2-bit planes (code 32q+e in bits 2q of byte e), 3 bits: + 16 high-bit bytes
    const uint8_t* chunk = group + (u / 8) * (Bits == 3 ? 48 : 32);
    const uint8x16_t v = vld1q_u8(chunk + (u % 2) * 16);
    const uint8x16_t low = vandq_u8(vshlq_u8(v, vdupq_n_s8(static_cast<int8_t>(-2 * ((u % 8) / 2)))), vdupq_n_u8(3));
    if constexpr (Bits == 2) {
      return low;
    } else {
      return vorrq_u8(low, vandq_u8(bit_lanes(chunk + 32 + 2 * (u % 8)), vdupq_n_u8(4)));
    }
  }
}

/// The 16 weights of codes 16u … 16u+15 of a group: TBL of their indices in the codebook as signed bytes.
template <int Bits>
inline int8x16_t weights(const uint8_t* group, int u, int8x16_t lut) {
  return vqtbl1q_s8(lut, code_indices<Bits>(group, u));
}

/// Lane b = the sum of the lanes of d[b], for four int32 accumulators (exact in any order).
inline int32x4_t hsum4(const int32x4_t* d) { return vpaddq_s32(vpaddq_s32(d[0], d[1]), vpaddq_s32(d[2], d[3])); }

/// acc + σ·((scale·s_cb)·float(dots)), four outputs at once, each step rounded as in the generic kernel.
inline float32x4_t accumulate(float32x4_t acc, float32x4_t sig, float cs, int32x4_t dots) {
  return vaddq_f32(acc, vmulq_f32(sig, vmulq_f32(vdupq_n_f32(cs), vcvtq_f32_s32(dots))));
}

/// f(k, wv) for the codes k … k+15 of weight rows [n0, n0+4) (one panel), 16 at a time in k order: wv[b] holds
/// the weights of row n0 + b — the prefill blocks' decoding, whatever order they store the rows in.
template <int K, int N, int Bits, int Layout, class F>
inline void decode_rows4(const uint8_t* codes, int64_t n0, int8x16_t lut, F&& f) {
  constexpr int g = cq::group_size(K);
  constexpr int kStride = kRowStride<K, Bits, Layout>;
  for (int j = 0; j < cq::groups(K); ++j) {
    const uint8_t* cj = cq_i8_loops::group_codes<K, N, Bits, Layout>(codes, n0, j);
    #pragma GCC unroll 8
    for (int u = 0; u < g / 16; ++u) {
      int8x16_t wv[4];
      #pragma GCC unroll 4
      for (int b = 0; b < 4; ++b) wv[b] = weights<Bits>(cj + b * kStride, u, lut);
      f(j * g + 16 * u, wv);
    }
  }
}

/// σ for cq_i8_loops::norms_transposed: four at once, exactly as cq::half_to_float.
struct HalfNorms {
  static constexpr int kNormLanes = 4;
  static void norms(const uint16_t* h, float* out) { vst1q_f32(out, detail::half4_to_float(h)); }
};

/// Prefill products: activation rows [r0, r0+R) (R = 1 or 2) times the four decoded weight rows in w (4 rows of
/// padded_k(K) bytes), into y's columns n0 … n0+3.
template <int K, int N, int R, class Ops>
inline void gemm_rows(const void* xq, int32_t r0, const int8_t* w, const float* sigT, float scb, int64_t n0,
                      float* y) {
  constexpr int g = cq::group_size(K);
  constexpr int Kp = cq::padded_k(K);
  ActRow<K> x[R];
  float32x4_t acc[R];
  for (int i = 0; i < R; ++i) x[i] = ActRow<K>(xq, r0 + i), acc[i] = vdupq_n_f32(0.0f);
  for (int j = 0; j < cq::groups(K); ++j) {
    int32x4_t d[4 * R];  // row r0 + i, weight row b: d[4i + b]
    #pragma GCC unroll 8
    for (int o = 0; o < 4 * R; ++o) d[o] = vdupq_n_s32(0);
    #pragma GCC unroll 8
    for (int u = 0; u < g / 16; ++u) {
      const int k = j * g + 16 * u;
      int8x16_t a[R];
      #pragma GCC unroll 2
      for (int i = 0; i < R; ++i) a[i] = vld1q_s8(x[i].q + k);
      #pragma GCC unroll 4
      for (int b = 0; b < 4; ++b) {
        const int8x16_t wb = vld1q_s8(w + b * Kp + k);
        #pragma GCC unroll 2
        for (int i = 0; i < R; ++i) d[4 * i + b] = Ops::dot(d[4 * i + b], wb, a[i]);
      }
    }
    const float32x4_t sig = vld1q_f32(sigT + 4 * j);
    #pragma GCC unroll 2
    for (int i = 0; i < R; ++i) acc[i] = accumulate(acc[i], sig, x[i].scale[j] * scb, hsum4(d + 4 * i));
  }
  for (int i = 0; i < R; ++i) vst1q_f32(y + static_cast<int64_t>(r0 + i) * N + n0, acc[i]);
}

/// Prefill: weight rows [n0, n0+4) (one panel) decoded into w (4 rows of padded_k(K) bytes), applied to all rows,
/// two at a time.
template <int K, int N, int Bits, int Layout, class Ops>
inline void gemm_block(int32_t rows, const void* xq, const uint8_t* codes, const uint16_t* norms, int64_t n0,
                       int8x16_t lut, float scb, int8_t* w, float* y) {
  constexpr int G = cq::groups(K);
  constexpr int Kp = cq::padded_k(K);
  decode_rows4<K, N, Bits, Layout>(codes, n0, lut, [&](int k, const int8x16_t* wv) {
    for (int b = 0; b < 4; ++b) vst1q_s8(w + b * Kp + k, wv[b]);
  });
  float sigT[G * 4];
  cq_i8_loops::norms_transposed<HalfNorms, N, G, 4, Layout>(norms, n0, sigT);
  int32_t r = 0;
  for (; r + 2 <= rows; r += 2) gemm_rows<K, N, 2, Ops>(xq, r, w, sigT, scb, n0, y);
  if (r < rows) gemm_rows<K, N, 1, Ops>(xq, r, w, sigT, scb, n0, y);
}

/// The ARMv8.0 operations: d += the products w·a of 16 signed bytes (SMULL, SMLAL2, SADALP); the prefill block above.
struct NeonOps {
  static inline int32x4_t dot(int32x4_t d, int8x16_t w, int8x16_t a) {
    return vpadalq_s16(d, vmlal_high_s8(vmull_s8(vget_low_s8(w), vget_low_s8(a)), w, a));
  }
  template <int K, int N, int Bits, int Layout>
  static inline void block(int32_t rows, const void* xq, const uint8_t* codes, const uint16_t* norms, int64_t n0,
                           int8x16_t lut, float scb, int8_t* w, float* y) {
    gemm_block<K, N, Bits, Layout, NeonOps>(rows, xq, codes, norms, n0, lut, scb, w, y);
  }
};

/// cq_i8_loops.h's micro-kernel on NEON, with the product steps and prefill block of `Ops` (NeonOps, or the
/// dotprod and i8mm sets').
template <class Ops>
struct Kernels : HalfNorms {
  /// Whether 16 codes at a time decode with one vector load: the planar layouts with full-size chunks, or 1-bit codes
  /// (the same LSB stream in every layout) in groups of 16 or more.
  template <int g, int Bits, int Layout>
  static constexpr bool kVectorDecode =
      Bits == 1 ? g % 16 == 0
                : (Layout == cq::kLayoutPlanar || Layout == cq::kLayoutPlanarPanel8) &&
                      cq::planar_chunk(g, Bits) == (Bits == 4 ? 64 : 128);

  /// The codebook as signed bytes (cq::int8_codebook) for TBL, and its scale s_cb.
  using Lut = int8x16_t;
  template <int Bits>
  static Lut lut(const float* codebook, float* scb) {
    int8_t q[16] = {};
    cq::int8_codebook(codebook, Bits, q, scb);
    return vld1q_s8(q);
  }

  /// Activation quantization, 16 values at a time. FMAXNM, like the generic compare, passes over quiet NaNs;
  /// FCVTNS rounds to nearest even, like nearbyint in the default rounding mode.
  static constexpr int kQuantLanes = 16;
  template <int g>
  static float absmax(const float* v) {
    float32x4_t m = vdupq_n_f32(0.0f);
    for (int i = 0; i < g; i += 4) m = vmaxnmq_f32(m, vabsq_f32(vld1q_f32(v + i)));
    return vmaxnmvq_f32(m);
  }
  template <int g>
  static int32_t quantize(const float* v, float inv, int8_t* out) {
    const float32x4_t vinv = vdupq_n_f32(inv);
    int32x4_t sum = vdupq_n_s32(0);
    for (int i = 0; i < g; i += 16) {
      int32x4_t q[4];
      for (int k = 0; k < 4; ++k) {
        q[k] = vcvtnq_s32_f32(vmulq_f32(vld1q_f32(v + i + 4 * k), vinv));
        sum = vaddq_s32(sum, q[k]);
      }
      const int16x8_t lo = vcombine_s16(vmovn_s32(q[0]), vmovn_s32(q[1]));
      const int16x8_t hi = vcombine_s16(vmovn_s32(q[2]), vmovn_s32(q[3]));
      vst1q_s8(out + i, vcombine_s8(vmovn_s16(lo), vmovn_s16(hi)));
    }
    return vaddvq_s32(sum);
  }

  /// Decode: y[n0 … n0+NB) of one activation row, NB = 8 or 1, streaming the codes; Ops::dot adds 16 products.
  template <int K, int N, int Bits, int Layout, int NB>
  static void gemv_tile(const ActRow<K>& x, const uint8_t* codes, const uint16_t* norms, int64_t n0, Lut lut, float scb,
                        float* y) {
    constexpr int g = cq::group_size(K);
    constexpr int G = cq::groups(K);
    constexpr int kStride = kRowStride<K, Bits, Layout>;
    float sigT[G * NB];
    cq_i8_loops::norms_transposed<HalfNorms, N, G, NB, Layout>(norms, n0, sigT);
    float32x4_t acc0 = vdupq_n_f32(0.0f), acc1 = vdupq_n_f32(0.0f);
    float acc = 0.0f;
    for (int j = 0; j < G; ++j) {
      const uint8_t* cj = cq_i8_loops::group_codes<K, N, Bits, Layout>(codes, n0, j);
      if constexpr (cq::panel_rows(Layout) == 1) {
        // Eight rows are eight streams, too many for the hardware prefetcher: fetch the same group two tiles ahead
        // (a prefetch never faults, even past the tensor).
        #pragma GCC unroll 8
        for (int b = 0; b < NB; ++b) __builtin_prefetch(cj + (2 * NB + b) * kStride);
      }
      int32x4_t d[NB];
      #pragma GCC unroll 8
      for (int b = 0; b < NB; ++b) d[b] = vdupq_n_s32(0);
      #pragma GCC unroll 8
      for (int u = 0; u < g / 16; ++u) {
        const int8x16_t a = vld1q_s8(x.q + j * g + 16 * u);
        #pragma GCC unroll 8
        for (int b = 0; b < NB; ++b) d[b] = Ops::dot(d[b], weights<Bits>(cj + b * kStride, u, lut), a);
      }
      const float cs = x.scale[j] * scb;
      if constexpr (NB == 8) {
        acc0 = accumulate(acc0, vld1q_f32(sigT + 8 * j), cs, hsum4(d));
        acc1 = accumulate(acc1, vld1q_f32(sigT + 8 * j + 4), cs, hsum4(d + 4));
      } else {
        const float t = cs * static_cast<float>(vaddvq_s32(d[0]));
        acc = acc + sigT[j] * t;
      }
    }
    if constexpr (NB == 8) {
      vst1q_f32(y + n0, acc0);
      vst1q_f32(y + n0 + 4, acc1);
    } else {
      y[n0] = acc;
    }
  }

  /// Prefill: output columns [n0, n1) of all rows, Ops::block over four weight rows at a time (the buffer holds
  /// four decoded rows in whatever order the block wants), then single columns.
  template <int K, int N, int Bits, int Layout>
  static void gemm_range(int32_t rows, const void* xq, const uint8_t* c, const uint16_t* nrm, int64_t n0, int64_t n1,
                         Lut lut, float scb, float* y) {
    alignas(16) int8_t w[4 * cq::padded_k(K)];
    int64_t n = n0;
    for (; n + 4 <= n1; n += 4) Ops::template block<K, N, Bits, Layout>(rows, xq, c, nrm, n, lut, scb, w, y);
    cq_i8_loops::gemv_columns<Kernels, K, N, Bits, Layout>(rows, xq, c, nrm, n, n1, lut, scb, y);
  }
};

}  // namespace cq_i8_detail

// cq_quantize_act_i8, cq_matmul_i8, cq_matmul2_i8, cq_matmul3_i8.
SAGUARO_KERNELS_DEFINE_CQ_I8(cq_i8_detail::Kernels<cq_i8_detail::NeonOps>)

}  // namespace saguaro::kernels::arm64_neon
