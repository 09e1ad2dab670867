// Codebook-quantized (CQ) float kernels (rotation, codebook matmul, embedding decode) over a per-ISA CQ micro-kernel
// `Cq` (x86_avx2::cq_detail::CqOps, arm64_neon::cq_detail::CqOps). Format: docs/quantization.md; contracts:
// generic/cq.h.
//
// cq_matmul_f32 keeps, per output, a Cq::F::kLanes-lane FMA sum of each group's products (in k order), reduces it
// in the ISA's fixed order (common.h) and adds it as acc = fma(σ_j, sum, acc) (groups in j order), so an output's
// value does not depend on `rows` or on the tile it was computed in. Against the generic kernel (one float sum per
// group in k order, then acc += σ_j·sum) only the order and rounding of the additions differ.
//
// cq_rotate_f32 and cq_embed_f32 perform the generic kernels' float operations in the same order (the fast
// Walsh–Hadamard butterflies are only vectorized), so they equal them bit for bit.
//
// `Cq` supplies, with F = Cq::F its float32 vector micro-ops (common.h):
//   Cq::Decoder, Cq::decoder<Bits>(codebook)     the registers that decode codes of width Bits
//   Cq::group<K, Bits, R, NB, XRow, XVec>(cj, xj, dec, d)   d[r·NB + b] += the products of one group of weight
//        rows cj + b·row_code_bytes (b < NB) with activation rows r < R (vector v of row r at xj + r·XRow + v·XVec)
//   Cq::prefetch(p)                              a read prefetch of p into L1
//   Cq::decode_group<Bits, g>(codes, dec, out)   a whole group's g codebook values (exact)
//   Cq::fwht<g>(v)                               cq::fwht_inplace's butterflies on g floats (same result)
//   Cq::rotate_group<g>(v, out)                  out = R_g v (cq::rotate's result)
#pragma once

#include <cmath>
#include <cstdint>

#include "saguaro/kernels/cq_format.h"
#include "saguaro/kernels/generic/cq.h"
#include "saguaro/kernels/parallel.h"

/// Defines cq_rotate_f32, cq_matmul_f32, cq_logits_f32 and cq_embed_f32 (generic/cq.h's contracts) in the enclosing
/// ISA namespace over vec:: with the CQ micro-kernel Cq.
#define SAGUARO_KERNELS_DEFINE_CQ_F32(Cq)                                                                            \
  template <int K>                                                                                                   \
  inline void cq_rotate_f32(int32_t rows, const float* x, float* xr, const Parallel* par = nullptr) {                \
    vec::cq_rotate_f32<Cq, K>(rows, x, xr, par);                                                                     \
  }                                                                                                                  \
  template <int K, int N, int Bits>                                                                                  \
  inline void cq_matmul_f32(int32_t rows, const float* xr, const void* codes, const void* norms,                     \
                            const void* codebook, float* y) {                                                        \
    vec::cq_matmul_f32<Cq, K, N, Bits>(rows, xr, codes, norms, codebook, y);                                         \
  }                                                                                                                  \
  SAGUARO_KERNELS_DEFINE_CQ_LOGITS()                                                                                 \
  template <int D, int Bits, int Layout = cq::kLayoutLsb, int V = 0>                                                 \
  inline void cq_embed_f32(int32_t rows, const int32_t* tok, const void* codes, const void* norms,                   \
                           const void* codebook, float scale, float* out) {                                          \
    vec::cq_embed_f32<Cq, D, Bits, Layout, V>(rows, tok, codes, norms, codebook, scale, out);                        \
  }

namespace saguaro::kernels::vec {

/// n consecutive half-float norms to floats (exact, as cq::half_to_float).
template <class F>
inline void norms_to_float(const uint16_t* h, int n, float* out) {
  int i = 0;
  for (; i + F::kLanes <= n; i += F::kLanes) F::store(out + i, F::half_to_float(h + i));
  for (; i < n; ++i) out[i] = cq::half_to_float(h[i]);
}

/// y[r·ldy + b] (+)= Σ_{j0<=j<j1} σ[b][j] · Σ_i c[code(b, j, i)] · x_r[j·g + i] for r < R, b < NB, adding to y
/// when j0 > 0. Weight rows codes + b·kRowBytes are decoded once per group step into registers and applied to the
/// R activation rows (Cq::group); vector v (counted from group j0) of row r is at x + r·XRow + v·XVec;
/// σ[b][j] = sig[b·G + j]. Per output, a group's products accumulate in F::kLanes lanes, are summed (F::hsums
/// order) and added as acc = fma(σ_j, sum, acc), so neither the tile shape nor splitting [0, G) into passes
/// changes the result.
template <class Cq, int K, int Bits, int R, int NB, int XRow, int XVec>
inline void cq_tile(const float* x, const uint8_t* codes, const float* sig, const typename Cq::Decoder& dec,
                    float* y, int64_t ldy, int j0, int j1) {
  using F = typename Cq::F;
  constexpr int g = cq::group_size(K);
  constexpr int G = cq::groups(K);
  constexpr int kRowBytes = cq::row_code_bytes(K, Bits);
  constexpr int kGroupBytes = cq::group_code_bytes(K, Bits);
  float acc[R * NB];
  #pragma GCC unroll 16
  for (int r = 0; r < R; ++r)
    #pragma GCC unroll 16
    for (int b = 0; b < NB; ++b) acc[r * NB + b] = j0 > 0 ? y[r * ldy + b] : 0.0f;
  for (int j = j0; j < j1; ++j) {
    const uint8_t* cj = codes + j * kGroupBytes;
    const float* xj = x + (j - j0) * (g / F::kLanes) * XVec;
    // Decoding consumes codes too slowly for the hardware prefetcher to run ahead (a streaming GEMV ran at half
    // speed on AVX2 without this); fetch the same group of the rows two tiles ahead (a prefetch never faults).
    #pragma GCC unroll 16
    for (int b = 0; b < NB; ++b) Cq::prefetch(cj + (2 * NB + b) * kRowBytes);
    typename F::V d[R * NB];
    #pragma GCC unroll 16
    for (int o = 0; o < R * NB; ++o) d[o] = F::zero();
    Cq::template group<K, Bits, R, NB, XRow, XVec>(cj, xj, dec, d);
    alignas(32) float sums[R * NB];
    F::template hsums<R * NB>(d, sums);
    #pragma GCC unroll 16
    for (int o = 0; o < R * NB; ++o) acc[o] = std::fma(sig[(o % NB) * G + j], sums[o], acc[o]);
  }
  #pragma GCC unroll 16
  for (int r = 0; r < R; ++r)
    #pragma GCC unroll 16
    for (int b = 0; b < NB; ++b) y[r * ldy + b] = acc[r * NB + b];
}

/// Groups [j0, j1) of columns [n0, n1) for R rows (x as in cq_tile), NB columns per tile then one at a time; sig
/// holds the norms from column n0.
template <class Cq, int K, int N, int Bits, int R, int NB, int XRow, int XVec>
inline void cq_columns(int n0, int n1, int j0, int j1, const float* x, const uint8_t* codes, const float* sig,
                       const typename Cq::Decoder& dec, float* y) {
  constexpr int G = cq::groups(K);
  constexpr int kRowBytes = cq::row_code_bytes(K, Bits);
  int n = n0;
  for (; n + NB <= n1; n += NB) {
    cq_tile<Cq, K, Bits, R, NB, XRow, XVec>(x, codes + static_cast<int64_t>(n) * kRowBytes,
                                            sig + static_cast<int64_t>(n - n0) * G, dec, y + n, N, j0, j1);
  }
  for (; n < n1; ++n) {
    cq_tile<Cq, K, Bits, R, 1, XRow, XVec>(x, codes + static_cast<int64_t>(n) * kRowBytes,
                                           sig + static_cast<int64_t>(n - n0) * G, dec, y + n, N, j0, j1);
  }
}

/// All groups of columns [n0, n1) for `rows` (R <= rows < 8) rows of x [rows][Kp], read in place: one row takes 4
/// columns per tile (decode: four independent FMA chains), 2 or 3 rows 2 columns, more rows one.
template <class Cq, int K, int N, int Bits, int R = 1>
inline void cq_columns_few_rows(int32_t rows, int n0, int n1, const float* x, const uint8_t* codes, const float* sig,
                                const typename Cq::Decoder& dec, float* y) {
  if constexpr (R < 8) {
    constexpr int kNB = R == 1 ? 4 : (R <= 3 ? 2 : 1);
    constexpr int Kp = cq::padded_k(K);
    if (rows == R) {
      cq_columns<Cq, K, N, Bits, R, kNB, Kp, Cq::F::kLanes>(n0, n1, 0, cq::groups(K), x, codes, sig, dec, y);
    } else {
      cq_columns_few_rows<Cq, K, N, Bits, R + 1>(rows, n0, n1, x, codes, sig, dec, y);
    }
  }
}

/// xr[r] = per group j of the zero-padded row x[r]: R_g x_j (contract of generic::cq_rotate_f32, same result).
template <class Cq, int K>
inline void cq_rotate_f32(int32_t rows, const float* x, float* xr, const Parallel* par) {
  constexpr int g = cq::group_size(K);
  constexpr int G = cq::groups(K);
  generic::cq_detail::for_each_rotation_row<K>(par, rows, x, xr, [&](const float* src, float* dst) {
    for (int j = 0; j < G; ++j) {
      const int k0 = j * g;
      const float* v = src + k0;
      float buf[g];
      if (k0 + g > K) {
        for (int i = 0; i < g; ++i) buf[i] = k0 + i < K ? src[k0 + i] : 0.0f;
        v = buf;
      }
      Cq::template rotate_group<g>(v, dst + k0);
    }
  });
}

/// y[r][n] = Σ_j half(norms[n][j]) · Σ_i codebook[code(n,j,i)] · xr[r][j·g+i] (contract of
/// generic::cq_matmul_f32). Columns go in blocks of about 32 KiB of codes. Inside a block, prefill takes 8
/// activation rows at a time (each decoded vector feeds 8 FMAs from registers), 512 columns of K per pass with the
/// rows' slices interleaved vector by vector in a stack buffer; the remaining rows, and decode, read x in place.
template <class Cq, int K, int N, int Bits>
inline void cq_matmul_f32(int32_t rows, const float* xr, const void* codes, const void* norms, const void* codebook,
                          float* y) {
  using F = typename Cq::F;
  constexpr int L = F::kLanes;
  constexpr int g = cq::group_size(K);
  constexpr int G = cq::groups(K);
  constexpr int Kp = cq::padded_k(K);
  constexpr int kRowBytes = cq::row_code_bytes(K, Bits);
  constexpr int kFit = 32768 / kRowBytes / 4 * 4;
  constexpr int kBlock = kFit < 4 ? 4 : (kFit > 256 ? 256 : kFit);
  constexpr int kPassGroups = 512 / g < G ? 512 / g : G;
  const uint8_t* c = static_cast<const uint8_t*>(codes);
  const uint16_t* nrm = static_cast<const uint16_t*>(norms);
  const typename Cq::Decoder dec = Cq::template decoder<Bits>(static_cast<const float*>(codebook));
  float sig[kBlock * G];
  alignas(32) float xp[kPassGroups * g * 8];
  for (int n0 = 0; n0 < N; n0 += kBlock) {
    const int n1 = n0 + kBlock < N ? n0 + kBlock : N;
    vec::norms_to_float<F>(nrm + static_cast<int64_t>(n0) * G, (n1 - n0) * G, sig);
    int32_t r = 0;
    for (; r + 8 <= rows; r += 8) {
      const float* xb = xr + static_cast<int64_t>(r) * Kp;
      for (int j0 = 0; j0 < G; j0 += kPassGroups) {
        const int j1 = j0 + kPassGroups < G ? j0 + kPassGroups : G;
        // The 8 rows' slices interleaved vector by vector (16 KiB at most): every column of the block then reads
        // them from L1 as 8 contiguous vectors, instead of 8 rows 4·Kp bytes apart from L2.
        for (int ch = 0; ch < (j1 - j0) * g / L; ++ch)
          for (int rr = 0; rr < 8; ++rr)
            F::store(xp + (ch * 8 + rr) * L, F::load(xb + static_cast<int64_t>(rr) * Kp + j0 * g + ch * L));
        cq_columns<Cq, K, N, Bits, 8, 1, L, 8 * L>(n0, n1, j0, j1, xp, c, sig, dec, y + static_cast<int64_t>(r) * N);
      }
    }
    if (r < rows) {
      cq_columns_few_rows<Cq, K, N, Bits>(rows - r, n0, n1, xr + static_cast<int64_t>(r) * Kp, c, sig, dec,
                                          y + static_cast<int64_t>(r) * N);
    }
  }
}

/// out[r] = decoded row tok[r] of a CQ table [Vocab][D] times `scale` (contract of generic::cq_embed_f32, same
/// result): per group ŵ_j = σ_j · R_gᵀ c[code_j], first D elements.
template <class Cq, int D, int Bits, int Layout, int Vocab>
inline void cq_embed_f32(int32_t rows, const int32_t* tok, const void* codes, const void* norms, const void* codebook,
                         float scale, float* out) {
  if constexpr (Layout != cq::kLayoutLsb) {  // packed for the matmul kernels (tied embeddings): one row per token
    generic::cq_embed_f32<D, Bits, Layout, Vocab>(rows, tok, codes, norms, codebook, scale, out);
    return;
  }
  using F = typename Cq::F;
  constexpr int L = F::kLanes;
  constexpr int g = cq::group_size(D);
  constexpr int G = cq::groups(D);
  constexpr int kRowBytes = cq::row_code_bytes(D, Bits);
  constexpr int kGroupBytes = cq::group_code_bytes(D, Bits);
  constexpr const cq::RotationTable<g>& rot = cq::kRotationTable<g>;
  const uint8_t* c = static_cast<const uint8_t*>(codes);
  const uint16_t* nrm = static_cast<const uint16_t*>(norms);
  const typename Cq::Decoder dec = Cq::template decoder<Bits>(static_cast<const float*>(codebook));
  const typename F::V rscale = F::set1(cq::rotation_scale(g));
  const typename F::V vscale = F::set1(scale);
  float t[g];
  float w[g];
  for (int32_t r = 0; r < rows; ++r) {
    const int64_t tk = tok[r];
    const uint8_t* ct = c + tk * kRowBytes;
    float* dst = out + static_cast<int64_t>(r) * D;
    for (int j = 0; j < G; ++j) {
      // R_gᵀ u = P^T diag(s) (1/√g) H u, as cq::unrotate.
      Cq::template decode_group<Bits, g>(ct + j * kGroupBytes, dec, t);
      Cq::template fwht<g>(t);
      for (int i = 0; i < g; i += L) F::store(t + i, F::mul(F::mul(F::load(t + i), rscale), F::load(rot.sign + i)));
      for (int i = 0; i < g; ++i) w[rot.perm[i]] = t[i];
      const typename F::V sigma = F::set1(cq::half_to_float(nrm[tk * G + j]));
      const int k0 = j * g;
      // Only the last group may end inside a vector: its first len elements belong to the row.
      const int len = k0 + g <= D ? g : D - k0;
      int i = 0;
      for (; i + L <= len; i += L) F::store(dst + k0 + i, F::mul(F::mul(sigma, F::load(w + i)), vscale));
      if (i < len) {
        F::store_first(dst + k0 + i, F::mul(F::mul(sigma, F::load_first(w + i, len - i)), vscale), len - i);
      }
    }
  }
}

}  // namespace saguaro::kernels::vec
