// Shared AVX2 helpers: lane masks, float32/binary16 loads, horizontal sums in one fixed order, exact half-to-float
// conversion.
//
// Every reduction below adds the 8 lanes of an accumulator as ((l0+l1)+(l2+l3)) + ((l4+l5)+(l6+l7)), whether it
// reduces one, four or eight accumulators at once, so a kernel's result for one output does not depend on how
// many outputs it computed together.
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <cstring>

namespace saguaro::kernels::x86_avx2::detail {

/// All-ones in the first n (0..8) 32-bit lanes, for _mm256_maskload_ps/_mm256_maskstore_ps.
inline __m256i first_lanes(int n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/// Eight elements at p as floats: float32, or binary16 bits converted by F16C (exact, subnormal halves included
/// whatever MXCSR says — VCVTPH2PS ignores DAZ, Intel SDM; only a signalling NaN comes out quietened).
inline __m256 load8(const float* p) { return _mm256_loadu_ps(p); }
inline __m256 load8(const uint16_t* p) { return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))); }

/// p[0..n) (n in 0..8) in the first n lanes as floats, zeros above; reads nothing past p[n-1].
inline __m256 load8_first(const float* p, int n) { return _mm256_maskload_ps(p, first_lanes(n)); }
inline __m256 load8_first(const uint16_t* p, int n) {
  alignas(16) uint16_t b[8] = {};
  std::memcpy(b, p, sizeof(uint16_t) * n);
  return load8(b);
}

/// The sum of the 8 lanes of v.
inline float hsum(__m256 v) {
  const __m256 t = _mm256_hadd_ps(v, v);
  const __m256 u = _mm256_hadd_ps(t, t);
  return _mm_cvtss_f32(_mm_add_ss(_mm256_castps256_ps128(u), _mm256_extractf128_ps(u, 1)));
}

/// Lane i = sum of the lanes of a_i, for four accumulators.
inline __m128 hsum4(__m256 a0, __m256 a1, __m256 a2, __m256 a3) {
  const __m256 q = _mm256_hadd_ps(_mm256_hadd_ps(a0, a1), _mm256_hadd_ps(a2, a3));
  return _mm_add_ps(_mm256_castps256_ps128(q), _mm256_extractf128_ps(q, 1));
}

/// Lane i = sum of the lanes of a[i], for eight accumulators.
inline __m256 hsum8(const __m256* a) {
  const __m256 q0 = _mm256_hadd_ps(_mm256_hadd_ps(a[0], a[1]), _mm256_hadd_ps(a[2], a[3]));
  const __m256 q1 = _mm256_hadd_ps(_mm256_hadd_ps(a[4], a[5]), _mm256_hadd_ps(a[6], a[7]));
  return _mm256_add_ps(_mm256_permute2f128_ps(q0, q1, 0x20), _mm256_permute2f128_ps(q0, q1, 0x31));
}

/// out[i] = sum of the lanes of v[i] for i < n, eight or four accumulators at a time where possible.
template <int n>
inline void hsums(const __m256* v, float* out) {
  int i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, hsum8(v + i));
  for (; i + 4 <= n; i += 4) _mm_storeu_ps(out + i, hsum4(v[i], v[i + 1], v[i + 2], v[i + 3]));
  for (; i < n; ++i) out[i] = hsum(v[i]);
}

/// 8 IEEE binary16 values to float, bit for bit cq::half_to_float for all 65536 patterns (normals and inf/NaN by bit
/// manipulation, subnormals as mantissa·2^-24): unlike load8, a signalling NaN stays signalling. Where the values
/// only feed arithmetic, which quiets a signalling NaN the same way, load8 is the same and cheaper.
inline __m256 half8_to_float(const uint16_t* h) {
  const __m256i v = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(h)));
  const __m256i sign = _mm256_slli_epi32(_mm256_and_si256(v, _mm256_set1_epi32(0x8000)), 16);
  const __m256i mag = _mm256_and_si256(v, _mm256_set1_epi32(0x7FFF));
  const __m256i shifted = _mm256_slli_epi32(mag, 13);
  const __m256i normal = _mm256_add_epi32(shifted, _mm256_set1_epi32(112 << 23));
  const __m256i special = _mm256_or_si256(shifted, _mm256_set1_epi32(0x7F800000));
  const __m256 sub = _mm256_mul_ps(_mm256_cvtepi32_ps(mag), _mm256_set1_ps(5.9604644775390625e-8f));
  const __m256i is_special = _mm256_cmpgt_epi32(mag, _mm256_set1_epi32(0x7BFF));
  const __m256i is_sub = _mm256_cmpgt_epi32(_mm256_set1_epi32(0x0400), mag);
  __m256 f = _mm256_castsi256_ps(_mm256_blendv_epi8(normal, special, is_special));
  f = _mm256_blendv_ps(f, sub, _mm256_castsi256_ps(is_sub));
  return _mm256_or_ps(f, _mm256_castsi256_ps(sign));
}

}  // namespace saguaro::kernels::x86_avx2::detail
