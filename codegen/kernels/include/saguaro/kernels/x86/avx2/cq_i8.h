// Codebook-quantized (CQ) kernels on int8 activations (AVX2): activation quantization and the integer codebook
// matmul. Contracts and numerics: generic/cq_i8.h; this file equals it bit for bit.
//
// Codes in the planar layout (cq::kLayoutPlanar) decode 32 at a time into byte indices with one load, a mask and at
// most one shift (shared by two 2-bit planes); vpshufb looks them up in the codebook stored as unsigned bytes w + 64
// (0…128), and vpmaddubsw multiplies those by the signed activations (|pair sum| <= 2·128·127 < 2^15: it never
// saturates); vpmaddwd widens to int32. The offset comes back out per group: Σ (w + 64)·q − 64·Σ q = Σ w·q, exactly.
//
// Decode (fewer than 4 rows) streams the codes once, eight weight rows at a time. Prefill decodes a panel of eight
// weight rows (two when the range allows) once into a buffer in the dot-product layout — four bytes of each of the
// eight rows per 32-byte vector — and applies it to the activation rows four at a time: a broadcast of four
// activation bytes times one vector gives the partial dots of all eight rows, so neither the decoding nor
// horizontal sums set the pace, the multiplies do. The row and column loops around these tiles are cq_i8_loops.h's
// (Kernels is its micro-kernel). Layouts or group sizes without a vector decoder here go to the generic kernel.
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "saguaro/kernels/cq_format.h"
#include "saguaro/kernels/cq_i8_loops.h"
#include "saguaro/kernels/x86/avx2/common.h"

namespace saguaro::kernels::x86_avx2 {

namespace cq_i8_detail {

using cq_i8_loops::ActRow;
using cq_i8_loops::kRowStride;

#if defined(__AVX512BW__) && defined(__AVX512VL__)
/// Bit k: bit k of the LSB bit stream at p (4 bytes), which is already a byte mask: the stream's 32 bits moved into a
/// mask register (kmovd), no vector shuffle at all.
inline __mmask32 bits_mask(const uint8_t* p) {
  uint32_t w;
  std::memcpy(&w, p, sizeof w);
  return _cvtu32_mask32(w);
}
#else
/// Byte k: 0xFF where bit k of the LSB bit stream at p (4 bytes) is set, else 0 — AVX2 has no byte masks: byte i of
/// the stream is copied to lanes 8i … 8i+7 and lane 8i + j compared with 1 << j.
inline __m256i bits_bytes(const uint8_t* p) {
  uint32_t w;
  std::memcpy(&w, p, sizeof w);
  const __m256i spread = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,  //
                                          2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
  const __m256i bit = _mm256_set1_epi64x(static_cast<long long>(0x8040201008040201ull));
  const __m256i v = _mm256_shuffle_epi8(_mm256_set1_epi32(static_cast<int>(w)), spread);
  return _mm256_cmpeq_epi8(_mm256_and_si256(v, bit), bit);
}
#endif

/// Codes 0…31 of the LSB bit stream at p (4 bytes) as bytes 0/1.
inline __m256i bits1(const uint8_t* p) {
#if defined(__AVX512BW__) && defined(__AVX512VL__)
  return _mm256_maskz_mov_epi8(bits_mask(p), _mm256_set1_epi8(1));
#else
  return _mm256_and_si256(bits_bytes(p), _mm256_set1_epi8(1));
#endif
}

/// low + `high` where the high bit of each of codes 0…31 at p is set: the 3-bit codes' byte indices from their
/// 2-bit plane and high-bit stream.
inline __m256i with_high_bits(__m256i low, const uint8_t* p, int high) {
#if defined(__AVX512BW__) && defined(__AVX512VL__)
  return _mm256_mask_add_epi8(low, bits_mask(p), low, _mm256_set1_epi8(static_cast<char>(high)));
#else
  return _mm256_or_si256(low, _mm256_and_si256(bits_bytes(p), _mm256_set1_epi8(static_cast<char>(high))));
#endif
}

/// The codebook as unsigned bytes qcb + 64 for vpshufb (16 entries, in both 128-bit lanes), in the two index
/// arrangements code_indices produces: `even` is indexed by the code itself; `odd`, for the odd 2-bit planes of 2-
/// and 3-bit codes, by (low two bits) · 4 + (high bit) — the plane masked in place, without a shift.
struct CodeLut {
  __m256i even, odd;
  /// The table for codes 32u … 32u+31 of a group.
  template <int Bits>
  __m256i for_codes(int u) const {
    return (Bits == 2 || Bits == 3) && u % 2 ? odd : even;
  }
};

/// Codes 32u … 32u+31 of a planar group as byte indices into lut.for_codes<Bits>(u) (Kernels::kVectorDecode<g, Bits,
/// planar> holds). vpshufb reads only bits 0-3 of an index (and zeroes on bit 7), so 2-bit planes 0 and 1 are
/// masked where they lie (bits 0-1: 0…3; bits 2-3: 0, 4, 8, 12, which the odd table maps) and planes 2 and 3 after
/// one shift by 4: one shift per 128 codes instead of three, on the ports the shuffles and dot products need. A
/// 1024 × 1024 GEMV from L2 went from 7.1 to 8.0 bytes per cycle at 2 bits, 7.7 to 8.1 at 3 bits; Qwen3-0.6B's
/// shape at CQ2, one thread, alternating runs: decode 93.0–94.6 → 102.8–103.3 tok/s.
template <int Bits>
inline __m256i code_indices(const uint8_t* group, int u) {
  if constexpr (Bits == 4) {  // 64-code chunks of 32 bytes: low nibbles, then high nibbles
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(group + (u / 2) * 32));
    return _mm256_and_si256(u % 2 ? _mm256_srli_epi16(v, 4) : v, _mm256_set1_epi8(0x0F));
  } else if constexpr (Bits == 1) {
    return bits1(group + 4 * u);
  } else {  // 128-code chunks: 32 bytes of 2-bit planes (+ 16 bytes of high bits for 3-bit codes)
    const uint8_t* chunk = group + (u / 4) * (Bits == 3 ? 48 : 32);
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(chunk));
    const __m256i planes = u % 4 < 2 ? v : _mm256_srli_epi16(v, 4);
    const __m256i low = _mm256_and_si256(planes, _mm256_set1_epi8(u % 2 ? 0x0C : 0x03));
    if constexpr (Bits == 2) {
      return low;
    } else {
      return with_high_bits(low, chunk + 32 + 4 * (u % 4), u % 2 ? 1 : 4);
    }
  }
}

/// The AVX2 products: d += the sums of four adjacent products w·a of unsigned bytes w and signed bytes a, per
/// int32 lane — vpmaddubsw (pairs to int16, exact here), vpmaddwd against ones (pairs to int32), vpaddd. The
/// kernels below take the product step as a parameter `Ops` (Ops::dot), so that x86/avx512vnni/cq_i8.h can run
/// the same decoding and tiling with one vpdpbusd, which computes the same sums.
struct Avx2Ops {
  static inline __m256i dot(__m256i d, __m256i w, __m256i a) {
    return _mm256_add_epi32(d, _mm256_madd_epi16(_mm256_maddubs_epi16(w, a), _mm256_set1_epi16(1)));
  }
};

/// Lane i = sum of the lanes of d[i], for eight int32 accumulators.
inline __m256i hsum8_epi32(const __m256i* d) {
  const __m256i q0 = _mm256_hadd_epi32(_mm256_hadd_epi32(d[0], d[1]), _mm256_hadd_epi32(d[2], d[3]));
  const __m256i q1 = _mm256_hadd_epi32(_mm256_hadd_epi32(d[4], d[5]), _mm256_hadd_epi32(d[6], d[7]));
  return _mm256_add_epi32(_mm256_permute2x128_si256(q0, q1, 0x20), _mm256_permute2x128_si256(q0, q1, 0x31));
}

inline int32_t hsum_epi32(__m256i d) {
  const __m128i s = _mm_add_epi32(_mm256_castsi256_si128(d), _mm256_extracti128_si256(d, 1));
  const __m128i t = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
  return _mm_cvtsi128_si32(_mm_add_epi32(t, _mm_shuffle_epi32(t, 0xB1)));
}

/// σ for cq_i8_loops::norms_transposed, eight at once by F16C (load8): the values of cq::half_to_float, except
/// that a signalling NaN arrives quietened — which the multiplication it feeds does to it anyway, so the products
/// stay bit for bit the generic ones (IsaCqI8.EveryNormPatternBitIdentical). One instruction instead of the dozen
/// of detail::half8_to_float: the 1024 × 1024 GEMV from L2 35.7 → 33.1 thousand cycles at 4 bits, 34.8 → 32.6 at
/// 2; Qwen3-0.6B CQ2 at one thread, alternating runs, 91.8–104.6 → 105.4–111.3 tok/s, the same logits bit for bit.
struct HalfNorms {
  static constexpr int kNormLanes = 8;
  static void norms(const uint16_t* h, float* out) { _mm256_storeu_ps(out, detail::load8(h)); }
};

/// The 8×8 transpose of 32-bit lanes: afterwards v[q] holds lane q of the old v[0], …, v[7], in that order.
inline void transpose8_epi32(__m256i* v) {
  __m256i t[8], s[8];
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_epi32(v[i], v[i + 1]);
    t[i + 1] = _mm256_unpackhi_epi32(v[i], v[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    s[i] = _mm256_unpacklo_epi64(t[i], t[i + 2]);
    s[i + 1] = _mm256_unpackhi_epi64(t[i], t[i + 2]);
    s[i + 2] = _mm256_unpacklo_epi64(t[i + 1], t[i + 3]);
    s[i + 3] = _mm256_unpackhi_epi64(t[i + 1], t[i + 3]);
  }
  for (int q = 0; q < 4; ++q) {
    v[q] = _mm256_permute2x128_si256(s[q], s[q + 4], 0x20);
    v[q + 4] = _mm256_permute2x128_si256(s[q], s[q + 4], 0x31);
  }
}

/// Prefill weights: rows [n0, n0+8) decoded once into w in the dot-product layout — vector k/4 holds bytes
/// k…k+3 (qcb + 64) of each of the 8 rows, row b in lane b — for padded_k(K)/4 vectors.
template <int K, int N, int Bits, int Layout>
inline void decode_panel(const uint8_t* codes, int64_t n0, const CodeLut& lut, __m256i* w) {
  constexpr int g = cq::group_size(K);
  constexpr int G = cq::groups(K);
  constexpr int kGroupBytes = cq::group_code_bytes(K, Bits);
  constexpr int kStride = kRowStride<K, Bits, Layout>;
  for (int j = 0; j < G; ++j) {
    const uint8_t* cj = codes + cq::group_index(n0, j, N, G, Layout) * kGroupBytes;
    for (int u = 0; u < g / 32; ++u) {
      __m256i v[8];
      #pragma GCC unroll 8
      for (int b = 0; b < 8; ++b)
        v[b] = _mm256_shuffle_epi8(lut.for_codes<Bits>(u), code_indices<Bits>(cj + b * kStride, u));
      transpose8_epi32(v);
      #pragma GCC unroll 8
      for (int q = 0; q < 8; ++q) _mm256_store_si256(w + (j * g + 32 * u) / 4 + q, v[q]);
    }
  }
}

/// Prefill products: activation rows [r0, r0+R) times P decoded panels w[p] (decode_panel; rows n0 + 8p …),
/// into y. One broadcast of four activation bytes times one vector of a panel gives the partial dots of all 8 rows
/// at once, so no horizontal sums are needed; the float steps per group are generic::cq_matmul_i8's, lane by lane.
template <int K, int N, int P, int R, class Ops>
inline void gemm_panels(const void* xq, int32_t r0, const __m256i* const* w, const float* const* sigT, float scb,
                        int64_t n0, float* y) {
  constexpr int g = cq::group_size(K);
  constexpr int G = cq::groups(K);
  ActRow<K> x[R];
  for (int r = 0; r < R; ++r) x[r] = ActRow<K>(xq, r0 + r);
  __m256 acc[P * R];
  #pragma GCC unroll 8
  for (int i = 0; i < P * R; ++i) acc[i] = _mm256_setzero_ps();
  for (int j = 0; j < G; ++j) {
    __m256i d[P * R];
    #pragma GCC unroll 8
    for (int i = 0; i < P * R; ++i) d[i] = _mm256_setzero_si256();
    #pragma GCC unroll 4
    for (int k = j * g; k < (j + 1) * g; k += 4) {
      __m256i wk[P];
      #pragma GCC unroll 2
      for (int p = 0; p < P; ++p) wk[p] = _mm256_load_si256(w[p] + k / 4);
      #pragma GCC unroll 4
      for (int r = 0; r < R; ++r) {
        int32_t quad;
        std::memcpy(&quad, x[r].q + k, 4);
        const __m256i a = _mm256_set1_epi32(quad);
        #pragma GCC unroll 2
        for (int p = 0; p < P; ++p) d[p * R + r] = Ops::dot(d[p * R + r], wk[p], a);
      }
    }
    #pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      const __m256 cs = _mm256_set1_ps(x[r].scale[j] * scb);
      const __m256i offset = _mm256_set1_epi32(64 * x[r].sum[j]);
      #pragma GCC unroll 2
      for (int p = 0; p < P; ++p) {
        const __m256 t = _mm256_mul_ps(cs, _mm256_cvtepi32_ps(_mm256_sub_epi32(d[p * R + r], offset)));
        acc[p * R + r] = _mm256_add_ps(acc[p * R + r], _mm256_mul_ps(_mm256_loadu_ps(sigT[p] + 8 * j), t));
      }
    }
  }
  for (int r = 0; r < R; ++r)
    for (int p = 0; p < P; ++p) _mm256_storeu_ps(y + static_cast<int64_t>(r0 + r) * N + n0 + 8 * p, acc[p * R + r]);
}

/// Prefill: weight rows [n0, n0+8P) (P full panels of 8) applied to all activation rows, four at a time.
template <int K, int N, int Bits, int Layout, int P, class Ops>
inline void gemm_block(int32_t rows, const void* xq, const uint8_t* codes, const uint16_t* norms, int64_t n0,
                       const CodeLut& lut, float scb, __m256i* w, float* y) {
  constexpr int G = cq::groups(K);
  constexpr int kVectors = cq::padded_k(K) / 4;
  float sig[P][G * 8];
  const __m256i* wp[P];
  const float* sp[P];
  for (int p = 0; p < P; ++p) {
    decode_panel<K, N, Bits, Layout>(codes, n0 + 8 * p, lut, w + p * kVectors);
    cq_i8_loops::norms_transposed<HalfNorms, N, G, 8, Layout>(norms, n0 + 8 * p, sig[p]);
    wp[p] = w + p * kVectors, sp[p] = sig[p];
  }
  int32_t r = 0;
  for (; r + 4 <= rows; r += 4) gemm_panels<K, N, P, 4, Ops>(xq, r, wp, sp, scb, n0, y);
  switch (rows - r) {
    case 3: gemm_panels<K, N, P, 3, Ops>(xq, r, wp, sp, scb, n0, y); break;
    case 2: gemm_panels<K, N, P, 2, Ops>(xq, r, wp, sp, scb, n0, y); break;
    case 1: gemm_panels<K, N, P, 1, Ops>(xq, r, wp, sp, scb, n0, y); break;
    default: break;
  }
}

/// cq_i8_loops.h's micro-kernel on AVX2, with the product step of `Ops` (Avx2Ops, or x86/avx512vnni/cq_i8.h's).
template <class Ops>
struct Kernels : HalfNorms {
  /// Whether 32 codes at a time decode with one vector load: the planar layouts with full-size chunks.
  template <int g, int Bits, int Layout>
  static constexpr bool kVectorDecode = (Layout == cq::kLayoutPlanar || Layout == cq::kLayoutPlanarPanel8) &&
                                        cq::planar_chunk(g, Bits) == (Bits == 4 ? 64 : (Bits == 1 ? 32 : 128));

  /// The codebook as code_indices looks it up (CodeLut), and its scale s_cb.
  using Lut = CodeLut;
  template <int Bits>
  static Lut lut(const float* codebook, float* scb) {
    int8_t q[16];
    cq::int8_codebook(codebook, Bits, q, scb);
    alignas(16) uint8_t even[16] = {}, odd[16] = {};
    for (int c = 0; c < (1 << Bits); ++c) {
      even[c] = static_cast<uint8_t>(q[c] + 64);
      if (Bits == 2 || Bits == 3) odd[(c & 3) * 4 + (c >> 2)] = static_cast<uint8_t>(q[c] + 64);
    }
    const auto both_lanes = [](const uint8_t* t) {
      return _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(t)));
    };
    return {both_lanes(even), both_lanes(odd)};
  }

  /// Activation quantization, 32 values at a time; vcvtps2dq rounds to nearest even, like nearbyint in the default
  /// rounding mode.
  static constexpr int kQuantLanes = 32;
  template <int g>
  static float absmax(const float* v) {
    const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
    __m256 m = _mm256_setzero_ps();
    for (int i = 0; i < g; i += 8) m = _mm256_max_ps(m, _mm256_and_ps(_mm256_loadu_ps(v + i), abs_mask));
    const __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
    const __m128 m2 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
    return _mm_cvtss_f32(_mm_max_ss(m2, _mm_shuffle_ps(m2, m2, 1)));
  }
  template <int g>
  static int32_t quantize(const float* v, float inv, int8_t* out) {
    const __m256 vinv = _mm256_set1_ps(inv);
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    __m256i sum = _mm256_setzero_si256();
    for (int i = 0; i < g; i += 32) {
      __m256i q[4];
      for (int k = 0; k < 4; ++k) {
        q[k] = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(v + i + 8 * k), vinv));
        sum = _mm256_add_epi32(sum, q[k]);
      }
      const __m256i packed = _mm256_packs_epi16(_mm256_packs_epi32(q[0], q[1]), _mm256_packs_epi32(q[2], q[3]));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), _mm256_permutevar8x32_epi32(packed, order));
    }
    return hsum_epi32(sum);
  }

  /// Decode: y[n0 … n0+NB) of one activation row, NB = 8 or 1, streaming the codes.
  template <int K, int N, int Bits, int Layout, int NB>
  static void gemv_tile(const ActRow<K>& x, const uint8_t* codes, const uint16_t* norms, int64_t n0, const Lut& lut,
                        float scb, float* y) {
    constexpr int g = cq::group_size(K);
    constexpr int G = cq::groups(K);
    constexpr int kStride = kRowStride<K, Bits, Layout>;
    float sigT[G * NB];
    cq_i8_loops::norms_transposed<HalfNorms, N, G, NB, Layout>(norms, n0, sigT);
    __m256 acc = _mm256_setzero_ps();
    float acc1 = 0.0f;
    for (int j = 0; j < G; ++j) {
      const uint8_t* cj = cq_i8_loops::group_codes<K, N, Bits, Layout>(codes, n0, j);
      if constexpr (cq::panel_rows(Layout) == 1) {
        // Eight rows are eight streams, too many for the hardware prefetcher: fetch the same group two tiles ahead.
        #pragma GCC unroll 8
        for (int b = 0; b < NB; ++b)
          _mm_prefetch(reinterpret_cast<const char*>(cj + (2 * NB + b) * kStride), _MM_HINT_T0);
      }
      __m256i d[NB];
      #pragma GCC unroll 8
      for (int b = 0; b < NB; ++b) d[b] = _mm256_setzero_si256();
      #pragma GCC unroll 4
      for (int u = 0; u < g / 32; ++u) {
        const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x.q + j * g + 32 * u));
        #pragma GCC unroll 8
        for (int b = 0; b < NB; ++b)
          d[b] = Ops::dot(d[b], _mm256_shuffle_epi8(lut.for_codes<Bits>(u), code_indices<Bits>(cj + b * kStride, u)),
                          a);
      }
      const float cs = x.scale[j] * scb;
      if constexpr (NB == 8) {
        const __m256i dots = _mm256_sub_epi32(hsum8_epi32(d), _mm256_set1_epi32(64 * x.sum[j]));
        const __m256 t = _mm256_mul_ps(_mm256_set1_ps(cs), _mm256_cvtepi32_ps(dots));
        acc = _mm256_add_ps(acc, _mm256_mul_ps(_mm256_loadu_ps(sigT + 8 * j), t));
      } else {
        const float t = cs * static_cast<float>(hsum_epi32(d[0]) - 64 * x.sum[j]);
        acc1 = acc1 + sigT[j] * t;
      }
    }
    if constexpr (NB == 8) {
      _mm256_storeu_ps(y + n0, acc);
    } else {
      y[n0] = acc1;
    }
  }

  /// Prefill: output columns [n0, n1) of all rows: pairs of panels, a last panel, then single columns. Kept out of
  /// line: inlined into the caller beside the decode loop, its 2-panel buffer and code made GCC compile the decode
  /// tiles 40 % slower.
  template <int K, int N, int Bits, int Layout>
  __attribute__((noinline)) static void gemm_range(int32_t rows, const void* xq, const uint8_t* c, const uint16_t* nrm,
                                                   int64_t n0, int64_t n1, const Lut& lut, float scb, float* y) {
    __m256i w[2 * cq::padded_k(K) / 4];  // two decoded panels
    int64_t n = n0;
    for (; n + 16 <= n1; n += 16) gemm_block<K, N, Bits, Layout, 2, Ops>(rows, xq, c, nrm, n, lut, scb, w, y);
    for (; n + 8 <= n1; n += 8) gemm_block<K, N, Bits, Layout, 1, Ops>(rows, xq, c, nrm, n, lut, scb, w, y);
    cq_i8_loops::gemv_columns<Kernels, K, N, Bits, Layout>(rows, xq, c, nrm, n, n1, lut, scb, y);
  }
};

}  // namespace cq_i8_detail

// cq_quantize_act_i8, cq_matmul_i8, cq_matmul2_i8, cq_matmul3_i8.
SAGUARO_KERNELS_DEFINE_CQ_I8(cq_i8_detail::Kernels<cq_i8_detail::Avx2Ops>)

}  // namespace saguaro::kernels::x86_avx2
