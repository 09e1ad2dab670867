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
// into an L1 buffer of bytes once and applies them to the activation rows two at a time. The dotprod and i8mm sets
// (arm64/dotprod/cq_i8.h, arm64/i8mm/cq_i8.h) reuse this decoding and tiling through the `Ops` parameter: they
// replace the product (SDOT) and the prefill block (SMMLA). Layouts or group sizes without a vector decoder here go
// to the generic kernel.
#pragma once

// This ISA set has its own int8 CQ kernels (isa_cq_i8_test.cpp checks them).
#define SAGUARO_KERNELS_HAVE_CQ_I8 1

#include <arm_neon.h>

#include <cstdint>
#include <cstring>
#include <utility>

#include "saguaro/kernels/arm64/neon/common.h"
#include "saguaro/kernels/cq_format.h"
#include "saguaro/kernels/fused_products.h"
#include "saguaro/kernels/generic/cq_i8.h"

namespace saguaro::kernels::arm64_neon {

namespace cq_i8_detail {

/// Whether 16 codes at a time decode with one vector load: the planar layouts with full-size chunks, or 1-bit codes
/// (the same LSB stream in every layout) in groups of 16 or more.
template <int g, int Bits, int Layout>
constexpr bool kVectorDecode =
    Bits == 1 ? g % 16 == 0
              : (Layout == cq::kLayoutPlanar || Layout == cq::kLayoutPlanarPanel8) &&
                    cq::planar_chunk(g, Bits) == (Bits == 4 ? 64 : 128);

/// Lane i (of 16) all-ones where bit i of the LSB bit stream at p (2 bytes) is set, else zero.
inline uint8x16_t bit_lanes(const uint8_t* p) {
  static constexpr uint8_t kBit[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
  return vtstq_u8(vcombine_u8(vdup_n_u8(p[0]), vdup_n_u8(p[1])), vld1q_u8(kBit));
}

/// Codes 16u … 16u+15 of a group as byte indices (kVectorDecode<g, Bits, Layout> holds).
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

/// The codebook as signed bytes (cq::int8_codebook) for TBL, and its scale s_cb.
template <int Bits>
inline int8x16_t codebook_lut(const float* codebook, float* scb) {
  int8_t q[16] = {};
  cq::int8_codebook(codebook, Bits, q, scb);
  return vld1q_s8(q);
}

/// The 16 weights of codes 16u … 16u+15 of a group.
template <int Bits>
inline int8x16_t weights(const uint8_t* group, int u, int8x16_t lut) {
  return vqtbl1q_s8(lut, code_indices<Bits>(group, u));
}

/// One row of quantized activations: values, per-group scales and sums.
template <int K>
struct ActRow {
  const int8_t* q;
  const float* scale;
  explicit ActRow(const void* xq, int64_t r) {
    const uint8_t* row = static_cast<const uint8_t*>(xq) + r * cq::act_row_bytes(K);
    q = reinterpret_cast<const int8_t*>(row);
    scale = reinterpret_cast<const float*>(row + cq::padded_k(K));
  }
};

/// Lane b = the sum of the lanes of d[b], for four int32 accumulators (exact in any order).
inline int32x4_t hsum4(const int32x4_t* d) { return vpaddq_s32(vpaddq_s32(d[0], d[1]), vpaddq_s32(d[2], d[3])); }

/// acc + σ·((scale·s_cb)·float(dots)), four outputs at once, each step rounded as in the generic kernel.
inline float32x4_t accumulate(float32x4_t acc, float32x4_t sig, float cs, int32x4_t dots) {
  return vaddq_f32(acc, vmulq_f32(sig, vmulq_f32(vdupq_n_f32(cs), vcvtq_f32_s32(dots))));
}

/// sigT[j·NB + b] = σ of weight row n0 + b, group j (rows n0 … n0+NB−1 lie in one panel of the layout).
template <int N, int G, int NB, int Layout>
inline void norms_transposed(const uint16_t* norms, int64_t n0, float* sigT) {
  for (int j = 0; j < G; ++j) {
    const uint16_t* h = norms + cq::group_index(n0, j, N, G, Layout);
    if constexpr (NB % 4 == 0 && cq::panel_rows(Layout) == 8) {
      for (int b = 0; b < NB; b += 4) vst1q_f32(sigT + j * NB + b, detail::half4_to_float(h + b));
    } else {
      for (int b = 0; b < NB; ++b) sigT[j * NB + b] = cq::half_to_float(h[b * (cq::panel_rows(Layout) == 1 ? G : 1)]);
    }
  }
}

/// Bytes from one row's group to the next row's same group inside a panel.
template <int K, int Bits, int Layout>
constexpr int kRowStride = cq::panel_rows(Layout) == 1 ? cq::row_code_bytes(K, Bits) : cq::group_code_bytes(K, Bits);

/// Decode: y[n0 … n0+NB) of one activation row, NB = 8 or 1, streaming the codes; Ops::dot adds 16 products.
template <int K, int N, int Bits, int Layout, int NB, class Ops>
inline void gemv_tile(const ActRow<K>& x, const uint8_t* codes, const uint16_t* norms, int64_t n0, int8x16_t lut,
                      float scb, float* y) {
  constexpr int g = cq::group_size(K);
  constexpr int G = cq::groups(K);
  constexpr int kGroupBytes = cq::group_code_bytes(K, Bits);
  constexpr int kStride = kRowStride<K, Bits, Layout>;
  float sigT[G * NB];
  norms_transposed<N, G, NB, Layout>(norms, n0, sigT);
  float32x4_t acc0 = vdupq_n_f32(0.0f), acc1 = vdupq_n_f32(0.0f);
  float acc = 0.0f;
  for (int j = 0; j < G; ++j) {
    const uint8_t* cj = codes + cq::group_index(n0, j, N, G, Layout) * kGroupBytes;
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

/// Prefill: weight rows [n0, n0+4) (one panel) decoded into w (4 rows of padded_k(K) bytes), applied to all rows,
/// two at a time.
template <int K, int N, int Bits, int Layout, class Ops>
inline void gemm_block(int32_t rows, const void* xq, const uint8_t* codes, const uint16_t* norms, int64_t n0,
                       int8x16_t lut, float scb, int8_t* w, float* y) {
  constexpr int g = cq::group_size(K);
  constexpr int G = cq::groups(K);
  constexpr int Kp = cq::padded_k(K);
  constexpr int kGroupBytes = cq::group_code_bytes(K, Bits);
  constexpr int kStride = kRowStride<K, Bits, Layout>;
  for (int j = 0; j < G; ++j) {
    const uint8_t* cj = codes + cq::group_index(n0, j, N, G, Layout) * kGroupBytes;
    for (int b = 0; b < 4; ++b)
      #pragma GCC unroll 8
      for (int u = 0; u < g / 16; ++u) vst1q_s8(w + b * Kp + j * g + 16 * u, weights<Bits>(cj + b * kStride, u, lut));
  }
  float sigT[G * 4];
  norms_transposed<N, G, 4, Layout>(norms, n0, sigT);
  int32_t r = 0;
  for (; r + 2 <= rows; r += 2) {
    const ActRow<K> x0(xq, r), x1(xq, r + 1);
    float32x4_t acc0 = vdupq_n_f32(0.0f), acc1 = vdupq_n_f32(0.0f);  // row r, row r+1: columns n0 … n0+3
    for (int j = 0; j < G; ++j) {
      int32x4_t d[8];
      #pragma GCC unroll 8
      for (int o = 0; o < 8; ++o) d[o] = vdupq_n_s32(0);
      #pragma GCC unroll 8
      for (int u = 0; u < g / 16; ++u) {
        const int k = j * g + 16 * u;
        const int8x16_t a0 = vld1q_s8(x0.q + k), a1 = vld1q_s8(x1.q + k);
        #pragma GCC unroll 4
        for (int b = 0; b < 4; ++b) {
          const int8x16_t wb = vld1q_s8(w + b * Kp + k);
          d[b] = Ops::dot(d[b], wb, a0);
          d[4 + b] = Ops::dot(d[4 + b], wb, a1);
        }
      }
      const float32x4_t sig = vld1q_f32(sigT + 4 * j);
      acc0 = accumulate(acc0, sig, x0.scale[j] * scb, hsum4(d));
      acc1 = accumulate(acc1, sig, x1.scale[j] * scb, hsum4(d + 4));
    }
    vst1q_f32(y + static_cast<int64_t>(r) * N + n0, acc0);
    vst1q_f32(y + static_cast<int64_t>(r + 1) * N + n0, acc1);
  }
  if (r < rows) {
    const ActRow<K> x0(xq, r);
    float32x4_t acc = vdupq_n_f32(0.0f);
    for (int j = 0; j < G; ++j) {
      int32x4_t d[4];
      #pragma GCC unroll 4
      for (int b = 0; b < 4; ++b) d[b] = vdupq_n_s32(0);
      #pragma GCC unroll 8
      for (int u = 0; u < g / 16; ++u) {
        const int k = j * g + 16 * u;
        const int8x16_t a0 = vld1q_s8(x0.q + k);
        #pragma GCC unroll 4
        for (int b = 0; b < 4; ++b) d[b] = Ops::dot(d[b], vld1q_s8(w + b * Kp + k), a0);
      }
      acc = accumulate(acc, vld1q_f32(sigT + 4 * j), x0.scale[j] * scb, hsum4(d));
    }
    vst1q_f32(y + static_cast<int64_t>(r) * N + n0, acc);
  }
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

/// Decode: y[n] for the rows n of [n0, n1) of one activation row, n0 a multiple of 8 (eight at a time, then one at
/// a time).
template <int K, int N, int Bits, int Layout, class Ops>
inline void gemv_rows(const ActRow<K>& x, const uint8_t* c, const uint16_t* nrm, int64_t n0, int64_t n1,
                      int8x16_t lut, float scb, float* y) {
  int64_t n = n0;
  for (; n + 8 <= n1; n += 8) gemv_tile<K, N, Bits, Layout, 8, Ops>(x, c, nrm, n, lut, scb, y);
  for (; n < n1; ++n) gemv_tile<K, N, Bits, Layout, 1, Ops>(x, c, nrm, n, lut, scb, y);
}

/// The matmul with vector decoding (kVectorDecode holds): GEMV tiles of eight weight rows for fewer than 4 rows,
/// else Ops::block over four weight rows at a time (the buffer holds four decoded rows in whatever order it wants).
template <int K, int N, int Bits, int Layout, class Ops>
inline void matmul(int32_t rows, const void* xq, const void* codes, const void* norms, const void* codebook,
                   float* y, const Parallel* par) {
  const uint8_t* c = static_cast<const uint8_t*>(codes);
  const uint16_t* nrm = static_cast<const uint16_t*>(norms);
  float scb;
  const int8x16_t lut = codebook_lut<Bits>(static_cast<const float*>(codebook), &scb);
  // Each thread takes a range of output columns that starts on a panel (8 rows).
  parallel_ranges(par, N, 8, int64_t{rows} * N * K, [&](int64_t n0, int64_t n1) {
    if (rows < 4) {
      for (int32_t r = 0; r < rows; ++r)
        gemv_rows<K, N, Bits, Layout, Ops>(ActRow<K>(xq, r), c, nrm, n0, n1, lut, scb, y + int64_t{r} * N);
      return;
    }
    alignas(16) int8_t w[4 * cq::padded_k(K)];
    int64_t n = n0;
    for (; n + 4 <= n1; n += 4) Ops::template block<K, N, Bits, Layout>(rows, xq, c, nrm, n, lut, scb, w, y);
    for (; n < n1; ++n)
      for (int32_t r = 0; r < rows; ++r)
        gemv_tile<K, N, Bits, Layout, 1, Ops>(ActRow<K>(xq, r), c, nrm, n, lut, scb, y + static_cast<int64_t>(r) * N);
  });
}

/// The public matmul of an ISA level: the vector kernel where a decoder exists, else the generic one.
template <int K, int N, int Bits, int Layout, class Ops>
inline void matmul_or_generic(int32_t rows, const void* xq, const void* codes, const void* norms,
                              const void* codebook, float* y, const Parallel* par) {
  if constexpr (kVectorDecode<cq::group_size(K), Bits, Layout>) {
    matmul<K, N, Bits, Layout, Ops>(rows, xq, codes, norms, codebook, y, par);
  } else {
    generic::cq_matmul_i8<K, N, Bits, Layout>(rows, xq, codes, norms, codebook, y, par);
  }
}

/// This ISA level's side of the fused products (fused::products), with the product steps of `Ops`.
template <class Ops>
struct FusedIsa {
  template <int K, int Bits, int Layout>
  static constexpr bool kGemv = kVectorDecode<cq::group_size(K), Bits, Layout>;
  template <int Bits>
  static int8x16_t lut(const void* codebook, float* scb) {
    return codebook_lut<Bits>(static_cast<const float*>(codebook), scb);
  }
  template <int K, int N, int Bits, int Layout>
  static void matmul(int32_t rows, const void* xq, const void* codes, const void* norms, const void* codebook, float* y,
                     const Parallel* par) {
    matmul_or_generic<K, N, Bits, Layout, Ops>(rows, xq, codes, norms, codebook, y, par);
  }
  template <int K, int N, int Bits, int Layout>
  static void gemv_rows(const void* xq, int32_t r, const void* codes, const void* norms, int64_t n0, int64_t n1,
                        int8x16_t lut, float scb, float* y) {
    cq_i8_detail::gemv_rows<K, N, Bits, Layout, Ops>(ActRow<K>(xq, r), static_cast<const uint8_t*>(codes),
                                                     static_cast<const uint16_t*>(norms), n0, n1, lut, scb, y);
  }
};

}  // namespace cq_i8_detail

/// Quantized activations (contract of generic::cq_quantize_act_i8, same bytes). FMAXNM, like the generic compare,
/// passes over quiet NaNs; FCVTNS rounds to nearest even, like nearbyint in the default rounding mode.
template <int K>
inline void cq_quantize_act_i8(int32_t rows, const float* xr, void* xq) {
  constexpr int g = cq::group_size(K);
  constexpr int G = cq::groups(K);
  constexpr int Kp = cq::padded_k(K);
  if constexpr (g % 16 != 0) {
    generic::cq_quantize_act_i8<K>(rows, xr, xq);
  } else {
    for (int32_t r = 0; r < rows; ++r) {
      const float* x = xr + static_cast<int64_t>(r) * Kp;
      uint8_t* row = static_cast<uint8_t*>(xq) + static_cast<int64_t>(r) * cq::act_row_bytes(K);
      for (int j = 0; j < G; ++j) {
        const float* v = x + j * g;
        float32x4_t m = vdupq_n_f32(0.0f);
        for (int i = 0; i < g; i += 4) m = vmaxnmq_f32(m, vabsq_f32(vld1q_f32(v + i)));
        const float a = vmaxnmvq_f32(m);
        const float32x4_t inv = vdupq_n_f32(a > 0.0f ? 127.0f / a : 0.0f);
        int32x4_t sum = vdupq_n_s32(0);
        for (int i = 0; i < g; i += 16) {
          int32x4_t q[4];
          for (int k = 0; k < 4; ++k) {
            q[k] = vcvtnq_s32_f32(vmulq_f32(vld1q_f32(v + i + 4 * k), inv));
            sum = vaddq_s32(sum, q[k]);
          }
          const int16x8_t lo = vcombine_s16(vmovn_s32(q[0]), vmovn_s32(q[1]));
          const int16x8_t hi = vcombine_s16(vmovn_s32(q[2]), vmovn_s32(q[3]));
          vst1q_s8(reinterpret_cast<int8_t*>(row + j * g + i), vcombine_s8(vmovn_s16(lo), vmovn_s16(hi)));
        }
        const float scale = a / 127.0f;
        const int32_t s = vaddvq_s32(sum);
        std::memcpy(row + Kp + 4 * j, &scale, 4);
        std::memcpy(row + Kp + 4 * G + 4 * j, &s, 4);
      }
    }
  }
}

/// y = the integer codebook matmul of quantized activations (contract of generic::cq_matmul_i8, same result).
template <int K, int N, int Bits, int Layout>
inline void cq_matmul_i8(int32_t rows, const void* xq, const void* codes, const void* norms, const void* codebook,
                         float* y, const Parallel* par = nullptr) {
  cq_i8_detail::matmul_or_generic<K, N, Bits, Layout, cq_i8_detail::NeonOps>(rows, xq, codes, norms, codebook, y, par);
}

// cq_matmul2_i8, cq_matmul3_i8: every product's rows in one parallel region (fused_products.h).
SAGUARO_KERNELS_DEFINE_FUSED_CQ_PRODUCTS(cq_i8_detail::FusedIsa<cq_i8_detail::NeonOps>)

}  // namespace saguaro::kernels::arm64_neon
