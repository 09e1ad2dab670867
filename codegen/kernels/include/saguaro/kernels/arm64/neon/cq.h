// Codebook-quantized (CQ) kernels (NEON, ARMv8.0): rotation, codebook matmul/logits, embedding decode.
// Format: docs/quantization.md; contracts: generic/cq.h.
//
// Decoding works on runs of 16 codes (8 when the group size is 8), 2·Bits bytes. Unpacking: one TBL copies to
// byte k the byte that holds code k, a per-byte USHL moves the code to bit 0 and an AND masks it (3-bit codes
// may straddle two bytes, so they are shifted in 16-bit lanes and narrowed with UZP1). Lookup: the float
// codebook is stored as four byte planes (plane b, entry c = byte b of codebook[c]; 16 entries at most), so four
// TBLs give the four bytes of all 16 values and two rounds of ZIP1/ZIP2 reassemble the floats. Decoding is exact.
//
// cq_matmul_f32 keeps, per output, a 4-lane FMA sum of each group's products (codes in k order), reduces it in
// common.h's fixed order and adds it as acc = fma(σ_j, sum, acc) (groups in j order), so an output's value does
// not depend on `rows` or on the tile it was computed in. Against the generic kernel (one float sum per group in
// k order, then acc += σ_j·sum) only the order and rounding of the additions differ.
//
// cq_rotate_f32 and cq_embed_f32 perform the generic kernels' float operations in the same order (the fast
// Walsh–Hadamard butterflies are only vectorized), so they equal them bit for bit.
#pragma once

#include <arm_neon.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "saguaro/kernels/arm64/neon/common.h"
#include "saguaro/kernels/cq_format.h"
#include "saguaro/kernels/parallel.h"
#include "saguaro/kernels/generic/cq.h"

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

/// n consecutive half-float norms to floats.
inline void norms_to_float(const uint16_t* h, int n, float* out) {
  int i = 0;
  for (; i + 4 <= n; i += 4) vst1q_f32(out + i, detail::half4_to_float(h + i));
  for (; i < n; ++i) out[i] = cq::half_to_float(h[i]);
}

/// y[r·ldy + b] (+)= Σ_{j0<=j<j1} σ[b][j] · Σ_i c[code(b, j, i)] · x_r[j·g + i] for r < R, b < NB, adding to y
/// when j0 > 0. Each run of a weight row (codes + b·kRowBytes) is decoded once into registers and applied to the
/// R activation rows; vector v (counted from group j0) of row r is at x + r·XRow + v·XVec; σ[b][j] = sig[b·G + j].
/// Per output, a group's products accumulate in 4 lanes, are summed (common.h order) and added as
/// acc = fma(σ_j, sum, acc), so neither the tile shape nor splitting [0, G) into passes changes the result.
template <int K, int Bits, int R, int NB, int XRow, int XVec>
inline void tile(const float* x, const uint8_t* codes, const float* sig, const Decoder& dec, float* y, int64_t ldy,
                 int j0, int j1) {
  constexpr int g = cq::group_size(K);
  constexpr int G = cq::groups(K);
  constexpr int kRowBytes = cq::row_code_bytes(K, Bits);
  constexpr int kGroupBytes = cq::group_code_bytes(K, Bits);
  constexpr int kRun = kRunCodes<g>;
  constexpr int kRunVecs = kRun / 4;
  float acc[R * NB];
  #pragma GCC unroll 16
  for (int r = 0; r < R; ++r)
    #pragma GCC unroll 16
    for (int b = 0; b < NB; ++b) acc[r * NB + b] = j0 > 0 ? y[r * ldy + b] : 0.0f;
  for (int j = j0; j < j1; ++j) {
    const uint8_t* cj = codes + j * kGroupBytes;
    const float* xj = x + (j - j0) * (g / 4) * XVec;
    // Decoding consumes codes slowly, so the hardware prefetcher may not run ahead; fetch the same group of the
    // rows two tiles ahead (a prefetch never faults, even past the tensor).
    #pragma GCC unroll 16
    for (int b = 0; b < NB; ++b) __builtin_prefetch(cj + (2 * NB + b) * kRowBytes);
    float32x4_t d[R * NB];
    #pragma GCC unroll 16
    for (int o = 0; o < R * NB; ++o) d[o] = vdupq_n_f32(0.0f);
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
    float sums[R * NB];
    detail::hsums<R * NB>(d, sums);
    #pragma GCC unroll 16
    for (int o = 0; o < R * NB; ++o) acc[o] = std::fma(sig[(o % NB) * G + j], sums[o], acc[o]);
  }
  #pragma GCC unroll 16
  for (int r = 0; r < R; ++r)
    #pragma GCC unroll 16
    for (int b = 0; b < NB; ++b) y[r * ldy + b] = acc[r * NB + b];
}

/// Groups [j0, j1) of columns [n0, n1) for R rows (x as in tile), NB columns per tile then one at a time; sig
/// holds the norms from column n0.
template <int K, int N, int Bits, int R, int NB, int XRow, int XVec>
inline void columns(int n0, int n1, int j0, int j1, const float* x, const uint8_t* codes, const float* sig,
                    const Decoder& dec, float* y) {
  constexpr int G = cq::groups(K);
  constexpr int kRowBytes = cq::row_code_bytes(K, Bits);
  int n = n0;
  for (; n + NB <= n1; n += NB) {
    tile<K, Bits, R, NB, XRow, XVec>(x, codes + static_cast<int64_t>(n) * kRowBytes,
                                     sig + static_cast<int64_t>(n - n0) * G, dec, y + n, N, j0, j1);
  }
  for (; n < n1; ++n) {
    tile<K, Bits, R, 1, XRow, XVec>(x, codes + static_cast<int64_t>(n) * kRowBytes,
                                    sig + static_cast<int64_t>(n - n0) * G, dec, y + n, N, j0, j1);
  }
}

/// All groups of columns [n0, n1) for `rows` (< 8) rows of x [rows][Kp]: one row takes 4 columns per tile
/// (decode: four independent FMA chains, each column's 16 decoded weights in 4 registers), more rows fewer.
template <int K, int N, int Bits>
inline void columns_few_rows(int32_t rows, int n0, int n1, const float* x, const uint8_t* codes, const float* sig,
                             const Decoder& dec, float* y) {
  constexpr int G = cq::groups(K);
  constexpr int Kp = cq::padded_k(K);
  switch (rows) {
    case 1:
      columns<K, N, Bits, 1, 4, Kp, 4>(n0, n1, 0, G, x, codes, sig, dec, y);
      break;
    case 2:
      columns<K, N, Bits, 2, 2, Kp, 4>(n0, n1, 0, G, x, codes, sig, dec, y);
      break;
    case 3:
      columns<K, N, Bits, 3, 2, Kp, 4>(n0, n1, 0, G, x, codes, sig, dec, y);
      break;
    case 4:
      columns<K, N, Bits, 4, 1, Kp, 4>(n0, n1, 0, G, x, codes, sig, dec, y);
      break;
    case 5:
      columns<K, N, Bits, 5, 1, Kp, 4>(n0, n1, 0, G, x, codes, sig, dec, y);
      break;
    case 6:
      columns<K, N, Bits, 6, 1, Kp, 4>(n0, n1, 0, G, x, codes, sig, dec, y);
      break;
    case 7:
      columns<K, N, Bits, 7, 1, Kp, 4>(n0, n1, 0, G, x, codes, sig, dec, y);
      break;
    default:
      break;
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

/// xr[r] = per group j of the zero-padded row x[r]: R_g x_j (contract of generic::cq_rotate_f32, same result).
/// The signed permutation is a scalar gather (NEON has no gather); the transform and the scaling are vectors.
template <int K>
inline void cq_rotate_f32(int32_t rows, const float* x, float* xr, const Parallel* par = nullptr) {
  constexpr int g = cq::group_size(K);
  constexpr int G = cq::groups(K);
  constexpr const cq::RotationTable<g>& rot = cq::kRotationTable<g>;
  const float32x4_t scale = vdupq_n_f32(cq::rotation_scale(g));
  generic::cq_detail::for_each_rotation_row<K>(par, rows, x, xr, [&](const float* src, float* dst) {
    for (int j = 0; j < G; ++j) {
      const int k0 = j * g;
      const float* v = src + k0;
      float buf[g];
      if (k0 + g > K) {
        for (int i = 0; i < g; ++i) buf[i] = k0 + i < K ? src[k0 + i] : 0.0f;
        v = buf;
      }
      float* out = dst + k0;
      for (int i = 0; i < g; ++i) out[i] = rot.sign[i] * v[rot.perm[i]];
      fwht<g>(out);
      for (int i = 0; i < g; i += 4) vst1q_f32(out + i, vmulq_f32(vld1q_f32(out + i), scale));
    }
  });
}

/// y[r][n] = Σ_j half(norms[n][j]) · Σ_i codebook[code(n,j,i)] · xr[r][j·g+i] (contract of
/// generic::cq_matmul_f32). Columns go in blocks of about 32 KiB of codes. Inside a block, prefill takes 8
/// activation rows at a time (each decoded run feeds 8 FMAs per vector from registers), 512 columns of K per pass
/// with the rows' slices interleaved vector by vector in a stack buffer; the remaining rows, and decode, read x in
/// place.
template <int K, int N, int Bits>
inline void cq_matmul_f32(int32_t rows, const float* xr, const void* codes, const void* norms, const void* codebook,
                          float* y) {
  constexpr int g = cq::group_size(K);
  constexpr int G = cq::groups(K);
  constexpr int Kp = cq::padded_k(K);
  constexpr int kRowBytes = cq::row_code_bytes(K, Bits);
  constexpr int kFit = 32768 / kRowBytes / 4 * 4;
  constexpr int kBlock = kFit < 4 ? 4 : (kFit > 256 ? 256 : kFit);
  constexpr int kPassGroups = 512 / g < G ? 512 / g : G;
  const uint8_t* c = static_cast<const uint8_t*>(codes);
  const uint16_t* nrm = static_cast<const uint16_t*>(norms);
  const cq_detail::Decoder dec = cq_detail::make_decoder<Bits>(static_cast<const float*>(codebook));
  float sig[kBlock * G];
  alignas(16) float xp[kPassGroups * g * 8];
  for (int n0 = 0; n0 < N; n0 += kBlock) {
    const int n1 = n0 + kBlock < N ? n0 + kBlock : N;
    cq_detail::norms_to_float(nrm + static_cast<int64_t>(n0) * G, (n1 - n0) * G, sig);
    int32_t r = 0;
    for (; r + 8 <= rows; r += 8) {
      const float* xb = xr + static_cast<int64_t>(r) * Kp;
      for (int j0 = 0; j0 < G; j0 += kPassGroups) {
        const int j1 = j0 + kPassGroups < G ? j0 + kPassGroups : G;
        // The 8 rows' slices interleaved vector by vector (16 KiB at most): every column of the block then reads
        // them from L1 as 128 contiguous bytes per vector, instead of 8 rows 4·Kp bytes apart from L2.
        for (int ch = 0; ch < (j1 - j0) * g / 4; ++ch)
          for (int rr = 0; rr < 8; ++rr)
            vst1q_f32(xp + (ch * 8 + rr) * 4, vld1q_f32(xb + static_cast<int64_t>(rr) * Kp + j0 * g + ch * 4));
        cq_detail::columns<K, N, Bits, 8, 1, 4, 32>(n0, n1, j0, j1, xp, c, sig, dec, y + static_cast<int64_t>(r) * N);
      }
    }
    if (r < rows) {
      cq_detail::columns_few_rows<K, N, Bits>(rows - r, n0, n1, xr + static_cast<int64_t>(r) * Kp, c, sig, dec,
                                              y + static_cast<int64_t>(r) * N);
    }
  }
}

/// CQ output projection: all rows of xr when `all`, else only the last row into y[0..N).
template <int K, int N, int Bits>
inline void cq_logits_f32(int32_t rows, bool all, const float* xr, const void* codes, const void* norms,
                          const void* codebook, float* y) {
  if (all) {
    cq_matmul_f32<K, N, Bits>(rows, xr, codes, norms, codebook, y);
  } else {
    cq_matmul_f32<K, N, Bits>(1, xr + static_cast<int64_t>(rows - 1) * cq::padded_k(K), codes, norms, codebook, y);
  }
}

/// out[r] = decoded row tok[r] of a CQ table [V][D] times `scale` (contract of generic::cq_embed_f32, same
/// result): per group ŵ_j = σ_j · R_gᵀ c[code_j], first D elements.
template <int D, int Bits, int Layout = cq::kLayoutLsb, int V = 0>
inline void cq_embed_f32(int32_t rows, const int32_t* tok, const void* codes, const void* norms, const void* codebook,
                         float scale, float* out) {
  if constexpr (Layout != cq::kLayoutLsb) {  // packed for the matmul kernels (tied embeddings): one row per token
    generic::cq_embed_f32<D, Bits, Layout, V>(rows, tok, codes, norms, codebook, scale, out);
    return;
  }
  constexpr int g = cq::group_size(D);
  constexpr int G = cq::groups(D);
  constexpr int kRowBytes = cq::row_code_bytes(D, Bits);
  constexpr int kGroupBytes = cq::group_code_bytes(D, Bits);
  constexpr int kLast = D - (G - 1) * g;
  constexpr const cq::RotationTable<g>& rot = cq::kRotationTable<g>;
  const uint8_t* c = static_cast<const uint8_t*>(codes);
  const uint16_t* nrm = static_cast<const uint16_t*>(norms);
  const cq_detail::Decoder dec = cq_detail::make_decoder<Bits>(static_cast<const float*>(codebook));
  const float32x4_t rscale = vdupq_n_f32(cq::rotation_scale(g));
  const float32x4_t vscale = vdupq_n_f32(scale);
  float t[g];
  float w[g];
  for (int32_t r = 0; r < rows; ++r) {
    const int64_t tk = tok[r];
    const uint8_t* ct = c + tk * kRowBytes;
    float* dst = out + static_cast<int64_t>(r) * D;
    for (int j = 0; j < G; ++j) {
      // R_gᵀ u = P^T diag(s) (1/√g) H u, as cq::unrotate.
      cq_detail::decode_group<Bits, g>(ct + j * kGroupBytes, dec, t);
      fwht<g>(t);
      for (int i = 0; i < g; i += 4)
        vst1q_f32(t + i, vmulq_f32(vmulq_f32(vld1q_f32(t + i), rscale), vld1q_f32(rot.sign + i)));
      for (int i = 0; i < g; ++i) w[rot.perm[i]] = t[i];
      const float32x4_t sigma = vdupq_n_f32(cq::half_to_float(nrm[tk * G + j]));
      const int k0 = j * g;
      // Only the last group may end inside a vector: its first kLast elements belong to the row.
      const int full = j + 1 < G ? g : kLast / 4 * 4;
      for (int i = 0; i < full; i += 4)
        vst1q_f32(dst + k0 + i, vmulq_f32(vmulq_f32(sigma, vld1q_f32(w + i)), vscale));
      if constexpr (kLast % 4 != 0) {
        if (j + 1 == G) {
          const float32x4_t v = vmulq_f32(vmulq_f32(sigma, vld1q_f32(w + full)), vscale);
          detail::store_first(dst + k0 + full, v, kLast % 4);
        }
      }
    }
  }
}

}  // namespace saguaro::kernels::arm64_neon
