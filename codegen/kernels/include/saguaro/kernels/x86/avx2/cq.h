// Codebook-quantized (CQ) kernels (AVX2+FMA): rotation, codebook matmul/logits, embedding decode.
// Format: docs/quantization.md; contracts: generic/cq.h.
//
// Decoding: the 8 codes of a chunk (Bits bytes) are broadcast to all lanes, lane k shifts its code to bit 0
// (vpsrlvd), and vpermps looks it up in a codebook register; 4-bit codes look up entries 0-7 and 8-15 in two
// registers and blend on the code's top bit. Codebooks of 2 or 4 entries are repeated across the 8 lanes, so
// vpermps may read the neighbouring code's bits above the code. Decoding is exact.
//
// cq_matmul_f32 keeps, per output, an 8-lane FMA sum of each group's products (chunks in k order), reduces it
// in common.h's fixed order and adds it as acc = fma(σ_j, sum, acc) (groups in j order), so an output's value
// does not depend on `rows` or on the tile it was computed in. Against the generic kernel (one float sum per
// group in k order, then acc += σ_j·sum) only the order and rounding of the additions differ.
//
// cq_rotate_f32 and cq_embed_f32 perform the generic kernels' float operations in the same order (the fast
// Walsh–Hadamard butterflies are only vectorized), so they equal them bit for bit.
#pragma once

#include <immintrin.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "saguaro/kernels/cq_format.h"
#include "saguaro/kernels/parallel.h"
#include "saguaro/kernels/generic/cq.h"
#include "saguaro/kernels/x86/avx2/common.h"

namespace saguaro::kernels::x86_avx2 {

namespace cq_detail {

/// Chunks (8 codes) per loaded word: 1- and 2-bit codes are read 4 bytes (4 or 2 chunks) at a time when a
/// group has that many bytes; otherwise a word is one chunk (Bits bytes).
template <int Bits, int kGroupBytes>
constexpr int kChunksPerWord = Bits <= 2 && kGroupBytes >= 4 ? 4 / Bits : 1;

/// Bit of code 0 in a loaded word: a 3-bit chunk is read as the 4 bytes that end with it (load_word).
template <int Bits>
constexpr int kWordBase = Bits == 3 ? 8 : 0;

/// Per-lane shifts that move code k of a chunk that starts at bit `base` of a word to bit 0.
template <int Bits>
inline __m256i code_shifts(int base) {
  return _mm256_setr_epi32(base, base + Bits, base + 2 * Bits, base + 3 * Bits, base + 4 * Bits, base + 5 * Bits,
                           base + 6 * Bits, base + 7 * Bits);
}

/// Codebook registers: lo = entries 0-7 (2- and 4-entry codebooks repeated), hi = entries 8-15 (Bits 4 only).
struct Codebook {
  __m256 lo, hi;
};

template <int Bits>
inline Codebook load_codebook(const float* cb) {
  static_assert(Bits >= 1 && Bits <= 4, "CQ codes are 1..4 bits");
  Codebook r;
  if constexpr (Bits == 1) {
    double pair;
    std::memcpy(&pair, cb, sizeof pair);
    r.lo = _mm256_castpd_ps(_mm256_set1_pd(pair));
  } else if constexpr (Bits == 2) {
    r.lo = _mm256_broadcast_ps(reinterpret_cast<const __m128*>(cb));
  } else {
    r.lo = _mm256_loadu_ps(cb);
  }
  r.hi = Bits == 4 ? _mm256_loadu_ps(cb + 8) : r.lo;
  return r;
}

/// The P chunks at p broadcast to all lanes as one word; chunk u starts at bit kWordBase + 8·Bits·u. A 3-bit
/// chunk is read as the 4 bytes from p-1, which belong to its group unless it is the group's first chunk.
template <int Bits, int P>
inline __m256i load_word(const uint8_t* p) {
  if constexpr (P > 1 || Bits == 4) {
    uint32_t w;
    std::memcpy(&w, p, sizeof w);
    return _mm256_set1_epi32(static_cast<int>(w));
  } else if constexpr (Bits == 1) {
    return _mm256_set1_epi8(static_cast<char>(*p));
  } else if constexpr (Bits == 2) {
    uint16_t w;
    std::memcpy(&w, p, sizeof w);
    return _mm256_set1_epi16(static_cast<short>(w));
  } else {
    uint32_t w;
    std::memcpy(&w, p - 1, sizeof w);
    return _mm256_set1_epi32(static_cast<int>(w));
  }
}

/// The first 3-bit chunk of a group (starting at bit 0): 4 bytes forward, or 3 when the group is one chunk.
template <int kGroupBytes>
inline __m256i load_first_word3(const uint8_t* p) {
  uint32_t w;
  if constexpr (kGroupBytes > 3) {
    std::memcpy(&w, p, sizeof w);
  } else {
    w = static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 | static_cast<uint32_t>(p[2]) << 16;
  }
  return _mm256_set1_epi32(static_cast<int>(w));
}

/// Calls step(c, words, shifts) for every word of a group at `codes` (NB rows kRowBytes apart), where words[b]
/// holds P chunks from chunk c of row b and shifts[u] decodes chunk u of them.
template <int Bits, int g, int P, int NB, int kRowBytes, class Step>
inline void for_each_word(const uint8_t* codes, Step&& step) {
  __m256i shifts[P];
  for (int u = 0; u < P; ++u) shifts[u] = code_shifts<Bits>(kWordBase<Bits> + 8 * Bits * u);
  __m256i words[NB];
  int c = 0;
  if constexpr (Bits == 3) {
    const __m256i first = code_shifts<3>(0);
    #pragma GCC unroll 16
    for (int b = 0; b < NB; ++b) words[b] = load_first_word3<g * 3 / 8>(codes + b * kRowBytes);
    step(0, words, &first);
    c = 1;
  }
  for (; c < g / 8; c += P) {
    #pragma GCC unroll 16
    for (int b = 0; b < NB; ++b) words[b] = load_word<Bits, P>(codes + b * kRowBytes + c * Bits);
    step(c, words, shifts);
  }
}

/// The 8 codebook values of a chunk word.
template <int Bits>
inline __m256 decode(__m256i word, __m256i shifts, const Codebook& cb) {
  const __m256i idx = _mm256_srlv_epi32(word, shifts);
  const __m256 v = _mm256_permutevar8x32_ps(cb.lo, idx);
  if constexpr (Bits == 4) {
    const __m256 vh = _mm256_permutevar8x32_ps(cb.hi, idx);
    return _mm256_blendv_ps(v, vh, _mm256_castsi256_ps(_mm256_slli_epi32(idx, 28)));
  } else {
    return v;
  }
}

/// Decodes a whole group of g codes into out[0..g) (equals generic::cq_detail::decode_group).
template <int Bits, int g>
inline void decode_group(const uint8_t* codes, const float* codebook, float* out) {
  constexpr int P = kChunksPerWord<Bits, g * Bits / 8>;
  const Codebook cb = load_codebook<Bits>(codebook);
  for_each_word<Bits, g, P, 1, 0>(codes, [&](int c, const __m256i* words, const __m256i* shifts) {
    for (int u = 0; u < P; ++u) _mm256_storeu_ps(out + 8 * (c + u), decode<Bits>(words[0], shifts[u], cb));
  });
}

/// n consecutive half-float norms to floats.
inline void norms_to_float(const uint16_t* h, int n, float* out) {
  int i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, detail::half8_to_float(h + i));
  for (; i < n; ++i) out[i] = cq::half_to_float(h[i]);
}

/// y[r·ldy + b] (+)= Σ_{j0<=j<j1} σ[b][j] · Σ_i c[code(b, j, i)] · x_r[j·g + i] for r < R, b < NB, adding to y
/// when j0 > 0. Weight rows codes + b·kRowBytes are decoded once per chunk into registers and applied to the R
/// activation rows; chunk c (counted from group j0) of row r is at x + r·XRow + c·XChunk; σ[b][j] = sig[b·G + j].
/// Per output, a group's products accumulate in 8 lanes, are summed (common.h order) and added as
/// acc = fma(σ_j, sum, acc), so neither the tile shape nor splitting [0, G) into passes changes the result.
template <int K, int Bits, int R, int NB, int XRow, int XChunk>
inline void tile(const float* x, const uint8_t* codes, const float* sig, const Codebook& cb, float* y, int64_t ldy,
                 int j0, int j1) {
  constexpr int g = cq::group_size(K);
  constexpr int G = cq::groups(K);
  constexpr int kRowBytes = cq::row_code_bytes(K, Bits);
  constexpr int kGroupBytes = cq::group_code_bytes(K, Bits);
  // Wide tiles keep the group sums in 8 registers; one shift register per chunk of a word would spill them.
  constexpr int P = R * NB <= 4 ? kChunksPerWord<Bits, kGroupBytes> : 1;
  float acc[R * NB];
  #pragma GCC unroll 16
  for (int r = 0; r < R; ++r)
    #pragma GCC unroll 16
    for (int b = 0; b < NB; ++b) acc[r * NB + b] = j0 > 0 ? y[r * ldy + b] : 0.0f;
  for (int j = j0; j < j1; ++j) {
    const uint8_t* cj = codes + j * kGroupBytes;
    const float* xj = x + (j - j0) * (g / 8) * XChunk;
    // Decoding consumes codes too slowly for the hardware prefetcher to run ahead (a streaming GEMV ran at half
    // speed without this); fetch the same group of the rows two tiles ahead.
    #pragma GCC unroll 16
    for (int b = 0; b < NB; ++b)
      _mm_prefetch(reinterpret_cast<const char*>(cj + (2 * NB + b) * kRowBytes), _MM_HINT_T0);
    __m256 d[R * NB];
    #pragma GCC unroll 16
    for (int o = 0; o < R * NB; ++o) d[o] = _mm256_setzero_ps();
    for_each_word<Bits, g, P, NB, kRowBytes>(cj, [&](int c, const __m256i* words, const __m256i* shifts) {
      #pragma GCC unroll 4
      for (int u = 0; u < P; ++u) {
        __m256 w[NB];
        #pragma GCC unroll 16
        for (int b = 0; b < NB; ++b) w[b] = decode<Bits>(words[b], shifts[u], cb);
        #pragma GCC unroll 16
        for (int r = 0; r < R; ++r) {
          const __m256 xv = _mm256_loadu_ps(xj + r * XRow + (c + u) * XChunk);
          #pragma GCC unroll 16
          for (int b = 0; b < NB; ++b) d[r * NB + b] = _mm256_fmadd_ps(w[b], xv, d[r * NB + b]);
        }
      }
    });
    alignas(32) float sums[R * NB];
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
template <int K, int N, int Bits, int R, int NB, int XRow, int XChunk>
inline void columns(int n0, int n1, int j0, int j1, const float* x, const uint8_t* codes, const float* sig,
                    const Codebook& cb, float* y) {
  constexpr int G = cq::groups(K);
  constexpr int kRowBytes = cq::row_code_bytes(K, Bits);
  int n = n0;
  for (; n + NB <= n1; n += NB) {
    tile<K, Bits, R, NB, XRow, XChunk>(x, codes + static_cast<int64_t>(n) * kRowBytes,
                                       sig + static_cast<int64_t>(n - n0) * G, cb, y + n, N, j0, j1);
  }
  for (; n < n1; ++n) {
    tile<K, Bits, R, 1, XRow, XChunk>(x, codes + static_cast<int64_t>(n) * kRowBytes,
                                      sig + static_cast<int64_t>(n - n0) * G, cb, y + n, N, j0, j1);
  }
}

/// All groups of columns [n0, n1) for `rows` (< 8) rows of x [rows][Kp]: one row takes 4 columns per tile
/// (decode), more rows fewer.
template <int K, int N, int Bits>
inline void columns_few_rows(int32_t rows, int n0, int n1, const float* x, const uint8_t* codes, const float* sig,
                             const Codebook& cb, float* y) {
  constexpr int G = cq::groups(K);
  constexpr int Kp = cq::padded_k(K);
  switch (rows) {
    case 1:
      columns<K, N, Bits, 1, 4, Kp, 8>(n0, n1, 0, G, x, codes, sig, cb, y);
      break;
    case 2:
      columns<K, N, Bits, 2, 2, Kp, 8>(n0, n1, 0, G, x, codes, sig, cb, y);
      break;
    case 3:
      columns<K, N, Bits, 3, 2, Kp, 8>(n0, n1, 0, G, x, codes, sig, cb, y);
      break;
    case 4:
      columns<K, N, Bits, 4, 1, Kp, 8>(n0, n1, 0, G, x, codes, sig, cb, y);
      break;
    case 5:
      columns<K, N, Bits, 5, 1, Kp, 8>(n0, n1, 0, G, x, codes, sig, cb, y);
      break;
    case 6:
      columns<K, N, Bits, 6, 1, Kp, 8>(n0, n1, 0, G, x, codes, sig, cb, y);
      break;
    case 7:
      columns<K, N, Bits, 7, 1, Kp, 8>(n0, n1, 0, G, x, codes, sig, cb, y);
      break;
    default:
      break;
  }
}

}  // namespace cq_detail

/// The fast Walsh–Hadamard transform of g floats (8 <= g <= 128) held in g/8 vectors, with the butterflies of
/// cq::fwht_inplace: each float result is computed by the same additions, so the output is identical. Fully
/// unrolled, the vectors stay in registers (the avx512vnni target has 32), where the in-memory version stored and
/// reloaded every vector at each of the log2(g/8) outer stages.
template <int g>
inline void fwht_vectors(__m256* r) {
  static_assert(g >= 8 && g % 8 == 0 && g <= 128, "group size is a multiple of 8, at most 128");
  constexpr int V = g / 8;
  #pragma GCC unroll 16
  for (int c = 0; c < V; ++c) {
    // h = 1, 2, 4 inside the register: partner t, then a+t in the lower and t-a in the upper element of a pair.
    __m256 a = r[c];
    __m256 t = _mm256_permute_ps(a, 0xB1);
    a = _mm256_blend_ps(_mm256_add_ps(a, t), _mm256_sub_ps(t, a), 0xAA);
    t = _mm256_permute_ps(a, 0x4E);
    a = _mm256_blend_ps(_mm256_add_ps(a, t), _mm256_sub_ps(t, a), 0xCC);
    t = _mm256_permute2f128_ps(a, a, 0x01);
    r[c] = _mm256_blend_ps(_mm256_add_ps(a, t), _mm256_sub_ps(t, a), 0xF0);
  }
  #pragma GCC unroll 4
  for (int h = 1; h < V; h *= 2) {  // h = 8, 16, 32, 64 elements
    #pragma GCC unroll 16
    for (int i = 0; i < V; i += 2 * h) {
      #pragma GCC unroll 16
      for (int j = i; j < i + h; ++j) {
        const __m256 a = r[j];
        const __m256 b = r[j + h];
        r[j] = _mm256_add_ps(a, b);
        r[j + h] = _mm256_sub_ps(a, b);
      }
    }
  }
}

/// In-place fast Walsh–Hadamard transform of g floats (fwht_vectors on their vectors).
template <int g>
inline void fwht(float* v) {
  __m256 r[g / 8];
  #pragma GCC unroll 16
  for (int c = 0; c < g / 8; ++c) r[c] = _mm256_loadu_ps(v + 8 * c);
  fwht_vectors<g>(r);
  #pragma GCC unroll 16
  for (int c = 0; c < g / 8; ++c) _mm256_storeu_ps(v + 8 * c, r[c]);
}

/// xr[r] = per group j of the zero-padded row x[r]: R_g x_j (contract of generic::cq_rotate_f32, same result).
template <int K>
inline void cq_rotate_f32(int32_t rows, const float* x, float* xr, const Parallel* par = nullptr) {
  constexpr int g = cq::group_size(K);
  constexpr int G = cq::groups(K);
  constexpr const cq::RotationTable<g>& rot = cq::kRotationTable<g>;
  const __m256 scale = _mm256_set1_ps(cq::rotation_scale(g));
  generic::cq_detail::for_each_rotation_row<K>(par, rows, x, xr, [&](const float* src, float* dst) {
    for (int j = 0; j < G; ++j) {
      const int k0 = j * g;
      const float* v = src + k0;
      float buf[g];
      if (k0 + g > K) {
        for (int i = 0; i < g; ++i) buf[i] = k0 + i < K ? src[k0 + i] : 0.0f;
        v = buf;
      }
      __m256 r[g / 8];
      #pragma GCC unroll 16
      for (int c = 0; c < g / 8; ++c) {
        const __m256i idx = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rot.perm + 8 * c));
        r[c] = _mm256_mul_ps(_mm256_loadu_ps(rot.sign + 8 * c), _mm256_i32gather_ps(v, idx, 4));
      }
      fwht_vectors<g>(r);
      #pragma GCC unroll 16
      for (int c = 0; c < g / 8; ++c) _mm256_storeu_ps(dst + k0 + 8 * c, _mm256_mul_ps(r[c], scale));
    }
  });
}

/// y[r][n] = Σ_j half(norms[n][j]) · Σ_i codebook[code(n,j,i)] · xr[r][j·g+i] (contract of
/// generic::cq_matmul_f32). Columns go in blocks of about 32 KiB of codes. Inside a block, prefill takes 8
/// activation rows at a time (each decoded chunk feeds 8 FMAs from registers), 512 columns of K per pass with the
/// rows' slices interleaved in a stack buffer; the remaining rows, and decode, read x in place.
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
  const cq_detail::Codebook cb = cq_detail::load_codebook<Bits>(static_cast<const float*>(codebook));
  float sig[kBlock * G];
  alignas(32) float xp[kPassGroups * g * 8];
  for (int n0 = 0; n0 < N; n0 += kBlock) {
    const int n1 = n0 + kBlock < N ? n0 + kBlock : N;
    cq_detail::norms_to_float(nrm + static_cast<int64_t>(n0) * G, (n1 - n0) * G, sig);
    int32_t r = 0;
    for (; r + 8 <= rows; r += 8) {
      const float* xb = xr + static_cast<int64_t>(r) * Kp;
      for (int j0 = 0; j0 < G; j0 += kPassGroups) {
        const int j1 = j0 + kPassGroups < G ? j0 + kPassGroups : G;
        // The 8 rows' slices interleaved chunk by chunk (16 KiB at most): every column of the block then reads
        // them from L1 as 256 contiguous bytes per chunk, instead of 8 rows 4·Kp bytes apart from L2.
        for (int ch = 0; ch < (j1 - j0) * g / 8; ++ch)
          for (int rr = 0; rr < 8; ++rr)
            _mm256_store_ps(xp + (ch * 8 + rr) * 8,
                            _mm256_loadu_ps(xb + static_cast<int64_t>(rr) * Kp + j0 * g + ch * 8));
        cq_detail::columns<K, N, Bits, 8, 1, 8, 64>(n0, n1, j0, j1, xp, c, sig, cb, y + static_cast<int64_t>(r) * N);
      }
    }
    if (r < rows) {
      cq_detail::columns_few_rows<K, N, Bits>(rows - r, n0, n1, xr + static_cast<int64_t>(r) * Kp, c, sig, cb,
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
  constexpr const cq::RotationTable<g>& rot = cq::kRotationTable<g>;
  const uint8_t* c = static_cast<const uint8_t*>(codes);
  const uint16_t* nrm = static_cast<const uint16_t*>(norms);
  const float* cb = static_cast<const float*>(codebook);
  const __m256 rscale = _mm256_set1_ps(cq::rotation_scale(g));
  const __m256 vscale = _mm256_set1_ps(scale);
  float t[g];
  float w[g];
  for (int32_t r = 0; r < rows; ++r) {
    const int64_t tk = tok[r];
    const uint8_t* ct = c + tk * kRowBytes;
    float* dst = out + static_cast<int64_t>(r) * D;
    for (int j = 0; j < G; ++j) {
      // R_gᵀ u = P^T diag(s) (1/√g) H u, as cq::unrotate.
      cq_detail::decode_group<Bits, g>(ct + j * kGroupBytes, cb, t);
      fwht<g>(t);
      for (int i = 0; i < g; i += 8) {
        const __m256 v = _mm256_mul_ps(_mm256_mul_ps(_mm256_loadu_ps(t + i), rscale), _mm256_loadu_ps(rot.sign + i));
        _mm256_storeu_ps(t + i, v);
      }
      for (int i = 0; i < g; ++i) w[rot.perm[i]] = t[i];
      const __m256 sigma = _mm256_set1_ps(cq::half_to_float(nrm[tk * G + j]));
      const int k0 = j * g;
      const int len = k0 + g <= D ? g : D - k0;
      int i = 0;
      for (; i + 8 <= len; i += 8)
        _mm256_storeu_ps(dst + k0 + i, _mm256_mul_ps(_mm256_mul_ps(sigma, _mm256_loadu_ps(w + i)), vscale));
      if (i < len) {
        const __m256i m = detail::first_lanes(len - i);
        _mm256_maskstore_ps(dst + k0 + i, m, _mm256_mul_ps(_mm256_mul_ps(sigma, _mm256_maskload_ps(w + i, m)), vscale));
      }
    }
  }
}

}  // namespace saguaro::kernels::x86_avx2
