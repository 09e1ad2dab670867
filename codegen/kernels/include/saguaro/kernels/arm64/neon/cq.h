// Codebook-quantized (CQ) kernels (NEON, ARMv8.0): rotation, codebook matmul/logits, embedding decode, as
// vec/cq.h's loops over this file's CQ micro-kernel (cq_detail::CqOps). Format: docs/quantization.md; contracts:
// generic/cq.h.
//
// Decoding works on runs of 16 codes (8 when the group size is 8), 2·Bits bytes. Unpacking: one TBL copies to
// byte k the byte that holds code k, a per-byte USHL moves the code to bit 0 and an AND masks it (3-bit codes
// may straddle two bytes, so they are shifted in 16-bit lanes and narrowed with UZP1). Lookup: the float
// codebook is stored as four byte planes (plane b, entry c = byte b of codebook[c]; 16 entries at most), so four
// TBLs give the four bytes of all 16 values and two rounds of ZIP1/ZIP2 reassemble the floats. Decoding is exact.
#pragma once

#include <arm_neon.h>

#include <cstdint>
#include <cstring>

#include "saguaro/kernels/arm64/neon/common.h"
#include "saguaro/kernels/cq_format.h"
#include "saguaro/kernels/vec/cq.h"

namespace saguaro::kernels::arm64_neon {

namespace cq_detail {

/// Codes decoded per step: 16 (two chunks of 8) when a group has them, else 8 (g = 8).
template <int g>
constexpr int kRunCodes = g >= 16 ? 16 : 8;

/// TBL indices and USHL shift counts that unpack 16 codes of width Bits so that byte k of the result is code k.
/// For Bits 1, 2 and 4, byte k gets byte[k] and is shifted by shift[k]; for Bits 3, 16-bit lane k of two vectors
/// (codes 0-7 from byte[0..16), codes 8-15 from byte[16..32)) gets the two bytes the code may span and is shifted
/// by shift[k % 8]. The counts are negative: USHL by −s shifts right by s.
struct UnpackTable {
  uint8_t byte[32];
  int8_t shift[16];
};

template <int Bits>
constexpr UnpackTable make_unpack_table() {
  UnpackTable t{};
  for (int k = 0; k < 16; ++k) {
    const int p = Bits * k;
    if (Bits == 3) {
      t.byte[2 * k] = static_cast<uint8_t>(p >> 3);
      t.byte[2 * k + 1] = static_cast<uint8_t>((p >> 3) + 1);
    } else {
      t.byte[k] = static_cast<uint8_t>(p >> 3);
    }
    t.shift[k] = static_cast<int8_t>(-(p & 7));
  }
  return t;
}

/// The unpacking table of width Bits (one instance per width).
template <int Bits>
inline constexpr UnpackTable kUnpackTable = make_unpack_table<Bits>();

/// Registers that decode codes of width Bits: the codebook's byte planes and the unpacking constants.
struct Decoder {
  uint8x16_t plane[4];
  uint8x16_t byte_lo, byte_hi;  // UnpackTable::byte[0..16) and [16..32) (byte_hi: Bits 3 only)
  int8x16_t shift8;             // per-byte shifts (Bits 1, 2, 4)
  int16x8_t shift16;            // per-16-bit-lane shifts (Bits 3)
  uint8x16_t mask;
};

/// The decoder of codebook cb (2^Bits floats).
template <int Bits>
inline Decoder make_decoder(const float* cb) {
  static_assert(Bits >= 1 && Bits <= 4, "CQ codes are 1..4 bits");
  uint8_t planes[4][16] = {};
  for (int c = 0; c < (1 << Bits); ++c) {
    uint32_t u;
    std::memcpy(&u, cb + c, sizeof u);
    for (int b = 0; b < 4; ++b) planes[b][c] = static_cast<uint8_t>(u >> (8 * b));
  }
  constexpr const UnpackTable& t = kUnpackTable<Bits>;
  Decoder d;
  for (int b = 0; b < 4; ++b) d.plane[b] = vld1q_u8(planes[b]);
  d.byte_lo = vld1q_u8(t.byte);
  d.byte_hi = vld1q_u8(t.byte + 16);
  d.shift8 = vld1q_s8(t.shift);
  int16_t s16[8];
  for (int k = 0; k < 8; ++k) s16[k] = t.shift[k];
  d.shift16 = vld1q_s16(s16);
  d.mask = vdupq_n_u8(static_cast<uint8_t>((1u << Bits) - 1u));
  return d;
}

/// Byte k (k < Codes) = code k of the run at p (Codes·Bits/8 bytes, nothing past them is read).
template <int Bits, int Codes>
inline uint8x16_t unpack(const uint8_t* p, const Decoder& d) {
  uint64_t w = 0;
  std::memcpy(&w, p, Codes * Bits / 8);
  const uint8x16_t src = vreinterpretq_u8_u64(vdupq_n_u64(w));
  if constexpr (Bits == 3) {
    const uint16x8_t lo = vshlq_u16(vreinterpretq_u16_u8(vqtbl1q_u8(src, d.byte_lo)), d.shift16);
    const uint16x8_t hi = vshlq_u16(vreinterpretq_u16_u8(vqtbl1q_u8(src, d.byte_hi)), d.shift16);
    return vandq_u8(vuzp1q_u8(vreinterpretq_u8_u16(lo), vreinterpretq_u8_u16(hi)), d.mask);
  } else {
    return vandq_u8(vshlq_u8(vqtbl1q_u8(src, d.byte_lo), d.shift8), d.mask);
  }
}

/// out[0..Codes/4) = the codebook values of the run of Codes codes at p.
template <int Bits, int Codes>
inline void decode(const uint8_t* p, const Decoder& d, float32x4_t* out) {
  const uint8x16_t idx = unpack<Bits, Codes>(p, d);
  const uint8x16_t b0 = vqtbl1q_u8(d.plane[0], idx);
  const uint8x16_t b1 = vqtbl1q_u8(d.plane[1], idx);
  const uint8x16_t b2 = vqtbl1q_u8(d.plane[2], idx);
  const uint8x16_t b3 = vqtbl1q_u8(d.plane[3], idx);
  // Bytes (0,1) and (2,3) of values 0-7 as 16-bit lanes, then the two halves as 32-bit lanes.
  const uint16x8_t l01 = vreinterpretq_u16_u8(vzip1q_u8(b0, b1));
  const uint16x8_t l23 = vreinterpretq_u16_u8(vzip1q_u8(b2, b3));
  out[0] = vreinterpretq_f32_u16(vzip1q_u16(l01, l23));
  out[1] = vreinterpretq_f32_u16(vzip2q_u16(l01, l23));
  if constexpr (Codes == 16) {
    const uint16x8_t h01 = vreinterpretq_u16_u8(vzip2q_u8(b0, b1));
    const uint16x8_t h23 = vreinterpretq_u16_u8(vzip2q_u8(b2, b3));
    out[2] = vreinterpretq_f32_u16(vzip1q_u16(h01, h23));
    out[3] = vreinterpretq_f32_u16(vzip2q_u16(h01, h23));
  }
}

/// Decodes a whole group of g codes into out[0..g) (equals generic::cq_detail::decode_group).
template <int Bits, int g>
inline void decode_group(const uint8_t* codes, const Decoder& d, float* out) {
  constexpr int kRun = kRunCodes<g>;
  for (int c = 0; c < g / kRun; ++c) {
    float32x4_t v[kRun / 4];
    decode<Bits, kRun>(codes + c * kRun * Bits / 8, d, v);
    for (int u = 0; u < kRun / 4; ++u) vst1q_f32(out + c * kRun + 4 * u, v[u]);
  }
}

/// n consecutive half-float norms to floats (vec::norms_to_float).
inline void norms_to_float(const uint16_t* h, int n, float* out) { vec::norms_to_float<detail::F32x4>(h, n, out); }

/// d[r·NB + b] += the products of group cj of weight rows cj + b·kRowBytes (b < NB), each run decoded once into
/// registers, with activation rows r < R (vector v of row r at xj + r·XRow + v·XVec), 4 lanes per output.
template <int K, int Bits, int R, int NB, int XRow, int XVec>
inline void group_products(const uint8_t* cj, const float* xj, const Decoder& dec, float32x4_t* d) {
  constexpr int g = cq::group_size(K);
  constexpr int kRowBytes = cq::row_code_bytes(K, Bits);
  constexpr int kRun = kRunCodes<g>;
  constexpr int kRunVecs = kRun / 4;
  for (int c = 0; c < g / kRun; ++c) {
    #pragma GCC unroll 16
    for (int b = 0; b < NB; ++b) {
      float32x4_t w[kRunVecs];
      decode<Bits, kRun>(cj + b * kRowBytes + c * kRun * Bits / 8, dec, w);
      #pragma GCC unroll 16
      for (int r = 0; r < R; ++r)
        #pragma GCC unroll 4
        for (int u = 0; u < kRunVecs; ++u)
          d[r * NB + b] = vfmaq_f32(d[r * NB + b], w[u], vld1q_f32(xj + r * XRow + (c * kRunVecs + u) * XVec));
    }
  }
}

}  // namespace cq_detail

/// In-place fast Walsh–Hadamard transform of g floats (g a multiple of 8, <= 128), with the butterflies of
/// cq::fwht_inplace: each float result is computed by the same addition, so the output is identical.
template <int g>
inline void fwht(float* v) {
  static_assert(g >= 8 && g % 8 == 0, "group size is a multiple of 8");
  for (int c = 0; c < g; c += 8) {
    float32x4_t a = vld1q_f32(v + c), b = vld1q_f32(v + c + 4);
    // h = 1: even and odd elements apart, then sums and differences interleaved back.
    float32x4_t e = vuzp1q_f32(a, b), o = vuzp2q_f32(a, b);
    float32x4_t s = vaddq_f32(e, o), d = vsubq_f32(e, o);
    a = vzip1q_f32(s, d);
    b = vzip2q_f32(s, d);
    // h = 2: element pairs (0,1) against (2,3) of each register.
    e = vcombine_f32(vget_low_f32(a), vget_low_f32(b));
    o = vcombine_f32(vget_high_f32(a), vget_high_f32(b));
    s = vaddq_f32(e, o);
    d = vsubq_f32(e, o);
    a = vcombine_f32(vget_low_f32(s), vget_low_f32(d));
    b = vcombine_f32(vget_high_f32(s), vget_high_f32(d));
    // h = 4: the two registers against each other.
    vst1q_f32(v + c, vaddq_f32(a, b));
    vst1q_f32(v + c + 4, vsubq_f32(a, b));
  }
  for (int h = 8; h < g; h *= 2) {
    for (int i = 0; i < g; i += 2 * h) {
      for (int j = i; j < i + h; j += 4) {
        const float32x4_t a = vld1q_f32(v + j);
        const float32x4_t b = vld1q_f32(v + j + h);
        vst1q_f32(v + j, vaddq_f32(a, b));
        vst1q_f32(v + j + h, vsubq_f32(a, b));
      }
    }
  }
}

namespace cq_detail {

/// The CQ micro-kernel of vec/cq.h on NEON (its contract there).
struct CqOps {
  using F = detail::F32x4;
  using Decoder = cq_detail::Decoder;
  template <int Bits>
  static Decoder decoder(const float* codebook) {
    return make_decoder<Bits>(codebook);
  }
  template <int K, int Bits, int R, int NB, int XRow, int XVec>
  static void group(const uint8_t* cj, const float* xj, const Decoder& dec, float32x4_t* d) {
    group_products<K, Bits, R, NB, XRow, XVec>(cj, xj, dec, d);
  }
  static void prefetch(const uint8_t* p) { __builtin_prefetch(p); }
  template <int Bits, int g>
  static void decode_group(const uint8_t* codes, const Decoder& dec, float* out) {
    cq_detail::decode_group<Bits, g>(codes, dec, out);
  }
  template <int g>
  static void fwht(float* v) {
    arm64_neon::fwht<g>(v);
  }
  /// R_g v: the signed permutation is a scalar gather (NEON has no gather); the transform and the scaling are
  /// vectors.
  template <int g>
  static void rotate_group(const float* v, float* out) {
    constexpr const cq::RotationTable<g>& rot = cq::kRotationTable<g>;
    const float32x4_t scale = vdupq_n_f32(cq::rotation_scale(g));
    for (int i = 0; i < g; ++i) out[i] = rot.sign[i] * v[rot.perm[i]];
    arm64_neon::fwht<g>(out);
    for (int i = 0; i < g; i += 4) vst1q_f32(out + i, vmulq_f32(vld1q_f32(out + i), scale));
  }
};

}  // namespace cq_detail

// cq_rotate_f32, cq_matmul_f32, cq_logits_f32, cq_embed_f32.
SAGUARO_KERNELS_DEFINE_CQ_F32(cq_detail::CqOps)

}  // namespace saguaro::kernels::arm64_neon
