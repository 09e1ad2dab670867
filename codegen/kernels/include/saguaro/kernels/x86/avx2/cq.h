// Codebook-quantized (CQ) kernels (AVX2+FMA): rotation, codebook matmul/logits, embedding decode, as vec/cq.h's
// loops over this file's CQ micro-kernel (cq_detail::CqOps). Format: docs/quantization.md; contracts: generic/cq.h.
//
// Decoding: the 8 codes of a chunk (Bits bytes) are broadcast to all lanes, lane k shifts its code to bit 0
// (vpsrlvd), and vpermps looks it up in a codebook register; 4-bit codes look up entries 0-7 and 8-15 in two
// registers and blend on the code's top bit. Codebooks of 2 or 4 entries are repeated across the 8 lanes, so
// vpermps may read the neighbouring code's bits above the code. Decoding is exact.
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "saguaro/kernels/cq_format.h"
#include "saguaro/kernels/vec/cq.h"
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
inline void decode_group(const uint8_t* codes, const Codebook& cb, float* out) {
  constexpr int P = kChunksPerWord<Bits, g * Bits / 8>;
  for_each_word<Bits, g, P, 1, 0>(codes, [&](int c, const __m256i* words, const __m256i* shifts) {
    for (int u = 0; u < P; ++u) _mm256_storeu_ps(out + 8 * (c + u), decode<Bits>(words[0], shifts[u], cb));
  });
}
template <int Bits, int g>
inline void decode_group(const uint8_t* codes, const float* codebook, float* out) {
  decode_group<Bits, g>(codes, load_codebook<Bits>(codebook), out);
}

/// n consecutive half-float norms to floats (vec::norms_to_float).
inline void norms_to_float(const uint16_t* h, int n, float* out) { vec::norms_to_float<detail::F32x8>(h, n, out); }

/// d[r·NB + b] += the products of group cj of weight rows cj + b·kRowBytes (b < NB), decoded chunk by chunk into
/// registers, with activation rows r < R (chunk c of row r at xj + r·XRow + c·XVec), 8 lanes per output.
template <int K, int Bits, int R, int NB, int XRow, int XVec>
inline void group_products(const uint8_t* cj, const float* xj, const Codebook& cb, __m256* d) {
  constexpr int g = cq::group_size(K);
  constexpr int kRowBytes = cq::row_code_bytes(K, Bits);
  constexpr int kGroupBytes = cq::group_code_bytes(K, Bits);
  // Wide tiles keep the group sums in 8 registers; one shift register per chunk of a word would spill them.
  constexpr int P = R * NB <= 4 ? kChunksPerWord<Bits, kGroupBytes> : 1;
  for_each_word<Bits, g, P, NB, kRowBytes>(cj, [&](int c, const __m256i* words, const __m256i* shifts) {
    #pragma GCC unroll 4
    for (int u = 0; u < P; ++u) {
      __m256 w[NB];
      #pragma GCC unroll 16
      for (int b = 0; b < NB; ++b) w[b] = decode<Bits>(words[b], shifts[u], cb);
      #pragma GCC unroll 16
      for (int r = 0; r < R; ++r) {
        const __m256 xv = _mm256_loadu_ps(xj + r * XRow + (c + u) * XVec);
        #pragma GCC unroll 16
        for (int b = 0; b < NB; ++b) d[r * NB + b] = _mm256_fmadd_ps(w[b], xv, d[r * NB + b]);
      }
    }
  });
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

namespace cq_detail {

/// The CQ micro-kernel of vec/cq.h on AVX2 (its contract there).
struct CqOps {
  using F = detail::F32x8;
  using Decoder = Codebook;
  template <int Bits>
  static Decoder decoder(const float* codebook) {
    return load_codebook<Bits>(codebook);
  }
  template <int K, int Bits, int R, int NB, int XRow, int XVec>
  static void group(const uint8_t* cj, const float* xj, const Decoder& cb, __m256* d) {
    group_products<K, Bits, R, NB, XRow, XVec>(cj, xj, cb, d);
  }
  static void prefetch(const uint8_t* p) { _mm_prefetch(reinterpret_cast<const char*>(p), _MM_HINT_T0); }
  template <int Bits, int g>
  static void decode_group(const uint8_t* codes, const Decoder& cb, float* out) {
    cq_detail::decode_group<Bits, g>(codes, cb, out);
  }
  template <int g>
  static void fwht(float* v) {
    x86_avx2::fwht<g>(v);
  }
  /// R_g v: the signed permutation as a gather, the transform in registers (fwht_vectors), then the scaling.
  template <int g>
  static void rotate_group(const float* v, float* out) {
    constexpr const cq::RotationTable<g>& rot = cq::kRotationTable<g>;
    const __m256 scale = _mm256_set1_ps(cq::rotation_scale(g));
    __m256 r[g / 8];
    #pragma GCC unroll 16
    for (int c = 0; c < g / 8; ++c) {
      const __m256i idx = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rot.perm + 8 * c));
      r[c] = _mm256_mul_ps(_mm256_loadu_ps(rot.sign + 8 * c), _mm256_i32gather_ps(v, idx, 4));
    }
    fwht_vectors<g>(r);
    #pragma GCC unroll 16
    for (int c = 0; c < g / 8; ++c) _mm256_storeu_ps(out + 8 * c, _mm256_mul_ps(r[c], scale));
  }
};

}  // namespace cq_detail

// cq_rotate_f32, cq_matmul_f32, cq_logits_f32, cq_embed_f32.
SAGUARO_KERNELS_DEFINE_CQ_F32(cq_detail::CqOps)

}  // namespace saguaro::kernels::x86_avx2
