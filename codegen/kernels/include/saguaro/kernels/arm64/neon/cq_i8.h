// Codebook-quantized (CQ) kernels on int8 activations (NEON, ARMv8.0): activation quantization and the integer
// codebook matmul. Contracts and numerics: generic/cq_i8.h; this file equals it bit for bit.
//
// Codes in the planar layouts (cq::kLayoutPlanar, cq::kLayoutPlanarPanel8) decode 16 at a time into byte indices
// with one load, a shift and a mask; 1-bit codes and the high bits of 3-bit codes, their bit stream loaded once per
// row, spread two bytes over 16 lanes (TBL) and test one bit per lane (CMTST). TBL looks the indices up in the
// codebook as signed bytes (cq::int8_codebook, −64…64). Products: SMULL + SMLAL2 add two w·q per 16-bit lane
// (|sum| <= 2·64·128 = 2^14, exact), SADALP widens them into int32 lanes, so every group's dot is exact in int32 and
// any order of the integer sums gives the same value. The float steps are the generic kernel's: t =
// (scale_j·s_cb)·float(dot_j), acc = acc + σ_j·t, one rounding each (no FMA: the kernels compile with
// -ffp-contract=off), groups in j order.
//
// Decode (fewer than 4 rows) streams the codes once, eight weight rows at a time, one row's group after the other
// against the group's activations held in registers; its 1-bit products take the code bits themselves (0 or −1)
// and the group's activation sum in place of the lookup (operand). Prefill decodes four weight rows into an L1
// buffer of bytes once and applies them to the activation rows two at a time. The row and column loops around these
// tiles are cq_i8_loops.h's (Kernels is its micro-kernel). The dotprod and i8mm sets (arm64/dotprod/cq_i8.h,
// arm64/i8mm/cq_i8.h) reuse this decoding and tiling through the `Ops` parameter: they replace the product (SDOT)
// and the prefill block (SMMLA). Layouts or group sizes without a vector decoder here go to the generic kernel.
#pragma once

#include <arm_neon.h>

#include <cstdint>
#include <cstring>

#include "saguaro/kernels/arm64/neon/common.h"
#include "saguaro/kernels/cq_format.h"
#include "saguaro/kernels/cq_i8_loops.h"

namespace saguaro::kernels::arm64_neon {

namespace cq_i8_detail {

using cq_i8_loops::ActRow;
using cq_i8_loops::kRowStride;

/// The n (2, 4, 8 or 16) bytes at p in the first lanes of a vector, zeros above; reads nothing past p[n-1].
template <int n>
inline uint8x16_t load_bytes(const uint8_t* p) {
  if constexpr (n == 16) {
    return vld1q_u8(p);
  } else if constexpr (n == 8) {
    return vcombine_u8(vld1_u8(p), vdup_n_u8(0));
  } else {
    uint8_t b[16] = {};
    std::memcpy(b, p, n);
    return vld1q_u8(b);
  }
}

/// Lane i (of 16) all-ones where bit 16u + i of the LSB bit stream in h (u < 8: the 128 bits of a vector) is set,
/// else zero: TBL copies bytes 2u and 2u + 1 to lanes 0…7 and 8…15, CMTST tests lane i's bit. No loads, so a row's
/// stream is loaded once for all its u.
inline uint8x16_t bit_lanes(uint8x16_t h, int u) {
  static constexpr uint8_t kBit[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
  uint8_t pair[16];
  for (int i = 0; i < 16; ++i) pair[i] = static_cast<uint8_t>(2 * u + i / 8);
  return vtstq_u8(vqtbl1q_u8(h, vld1q_u8(pair)), vld1q_u8(kBit));
}

/// Lane i all-ones where 1-bit code 16u + i of a group of g is 1 (the LSB stream, 16 bytes for 128 codes).
template <int g>
inline uint8x16_t one_bit_lanes(const uint8_t* group, int u) {
  return bit_lanes(load_bytes<(g < 128 ? g / 8 : 16)>(group + 16 * (u / 8)), u % 8);
}

/// Where code c of a 3-bit codebook sits in the lookup table: code_indices adds 7 for the high bit (USRA of its
/// all-ones lane by 5) rather than 4, which saves a mask.
constexpr int lut_slot(int Bits, int c) { return Bits == 3 && c >= 4 ? c + 3 : c; }

/// Codes 16u … 16u+15 of a group of g as lookup-table slots (lut_slot; Kernels::kVectorDecode<g, Bits, Layout>
/// holds).
template <int g, int Bits>
inline uint8x16_t code_indices(const uint8_t* group, int u) {
  if constexpr (Bits == 4) {  // 64-code chunks of 32 bytes: codes 0…31 in the low nibbles, 32…63 in the high ones
    const uint8x16_t v = vld1q_u8(group + (u / 4) * 32 + (u % 2) * 16);
    return (u / 2) % 2 ? vshrq_n_u8(v, 4) : vandq_u8(v, vdupq_n_u8(0x0F));
  } else if constexpr (Bits == 1) {
    return vandq_u8(one_bit_lanes<g>(group, u), vdupq_n_u8(1));
  } else {  // 128-code chunks: 32 bytes of 2-bit planes (code 32q+e in bits 2q of byte e), 3 bits: + 16 high-bit bytes
    const uint8_t* chunk = group + (u / 8) * (Bits == 3 ? 48 : 32);
    const uint8x16_t v = vld1q_u8(chunk + (u % 2) * 16);
    const int q = (u % 8) / 2;
    const uint8x16_t low =
        q == 3 ? vshrq_n_u8(v, 6) : vandq_u8(vshlq_u8(v, vdupq_n_s8(static_cast<int8_t>(-2 * q))), vdupq_n_u8(3));
    if constexpr (Bits == 2) {
      return low;
    } else {
      return vsraq_n_u8(low, bit_lanes(vld1q_u8(chunk + 32), u % 8), 5);
    }
  }
}

/// The 16 weights of codes 16u … 16u+15 of a group: TBL of their slots in the codebook as signed bytes.
template <int g, int Bits>
inline int8x16_t weights(const uint8_t* group, int u, int8x16_t lut) {
  return vqtbl1q_s8(lut, code_indices<g, Bits>(group, u));
}

/// The decode products' operand for codes 16u … 16u+15 of a group: their weights, or for 1-bit codes their bits as
/// 0 or −1 (no lookup): with w0, w1 the two weights and S = Σq the group's activation sum, Σ w·q = w0·S + (w0 −
/// w1)·Σ(−bit)·q (one_bit_dots), exact in int32 like the weights' own products.
template <int g, int Bits>
inline int8x16_t operand(const uint8_t* group, int u, int8x16_t lut) {
  if constexpr (Bits == 1) {
    return vreinterpretq_s8_u8(one_bit_lanes<g>(group, u));
  } else {
    return weights<g, Bits>(group, u, lut);
  }
}

/// The dots of 1-bit codes from those of their operands (operand): w0·sum + (w0 − w1)·dots, lane by lane.
inline int32x4_t one_bit_dots(int32x4_t dots, int8x16_t lut, int32_t sum) {
  const int32_t w0 = vgetq_lane_s8(lut, 0), w1 = vgetq_lane_s8(lut, 1);
  return vmlaq_n_s32(vdupq_n_s32(w0 * sum), dots, w0 - w1);
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
      for (int b = 0; b < 4; ++b) wv[b] = weights<g, Bits>(cj + b * kStride, u, lut);
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

  /// The codebook as signed bytes (cq::int8_codebook) for TBL, code c in slot lut_slot(Bits, c), and its scale s_cb.
  using Lut = int8x16_t;
  template <int Bits>
  static Lut lut(const float* codebook, float* scb) {
    int8_t q[16] = {}, slots[16] = {};
    cq::int8_codebook(codebook, Bits, q, scb);
    for (int c = 0; c < (1 << Bits); ++c) slots[lut_slot(Bits, c)] = q[c];
    return vld1q_s8(slots);
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
      // One row's group at a time against the group's activations held in registers, so that a row's codes are
      // loaded once and live only while it is decoded (eight rows' codes live at once do not fit in 32 registers).
      int8x16_t a[g / 16];
      #pragma GCC unroll 8
      for (int u = 0; u < g / 16; ++u) a[u] = vld1q_s8(x.q + j * g + 16 * u);
      int32x4_t d[NB];
      #pragma GCC unroll 8
      for (int b = 0; b < NB; ++b) {
        d[b] = vdupq_n_s32(0);
        #pragma GCC unroll 8
        for (int u = 0; u < g / 16; ++u) d[b] = Ops::dot(d[b], operand<g, Bits>(cj + b * kStride, u, lut), a[u]);
        // The compilers' schedulers would hoist every row's code loads (and clang defer its products) across the
        // rows and spill: the empty asm finishes row b (its result an input) before row b + 1's loads (memory).
        asm("" : : "w"(d[b]) : "memory");
      }
      const float cs = x.scale[j] * scb;
      if constexpr (NB == 8) {
        int32x4_t dots0 = hsum4(d), dots1 = hsum4(d + 4);
        if constexpr (Bits == 1) {
          dots0 = one_bit_dots(dots0, lut, x.sum[j]);
          dots1 = one_bit_dots(dots1, lut, x.sum[j]);
        }
        acc0 = accumulate(acc0, vld1q_f32(sigT + 8 * j), cs, dots0);
        acc1 = accumulate(acc1, vld1q_f32(sigT + 8 * j + 4), cs, dots1);
      } else {
        int32_t dot = vaddvq_s32(d[0]);
        if constexpr (Bits == 1) dot = vgetq_lane_s32(one_bit_dots(vdupq_n_s32(dot), lut, x.sum[j]), 0);
        const float t = cs * static_cast<float>(dot);
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
