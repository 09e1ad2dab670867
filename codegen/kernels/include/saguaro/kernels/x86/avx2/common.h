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

/// The float32 vector micro-ops the shared loops (vec/*.h) are written in, on 8 AVX2 lanes. Each is the single
/// instruction the AVX2 kernels use for it (fma: one rounding), so a shared loop performs their operations.
struct F32x8 {
  using V = __m256;
  static constexpr int kLanes = 8;
  static V load(const float* p) { return _mm256_loadu_ps(p); }
  /// kLanes binary16 values as floats (exact; only a signalling NaN comes out quietened).
  static V load(const uint16_t* p) { return load8(p); }
  static void store(float* p, V v) { _mm256_storeu_ps(p, v); }
  /// p[0..n) (n in 0..8) in the first n lanes, zeros above; reads and writes nothing past p[n-1].
  static V load_first(const float* p, int n) { return _mm256_maskload_ps(p, first_lanes(n)); }
  static V load_first(const uint16_t* p, int n) { return load8_first(p, n); }
  static void store_first(float* p, V v, int n) { _mm256_maskstore_ps(p, first_lanes(n), v); }
  static V set1(float a) { return _mm256_set1_ps(a); }
  static V zero() { return _mm256_setzero_ps(); }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static V sub(V a, V b) { return _mm256_sub_ps(a, b); }
  static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V div(V a, V b) { return _mm256_div_ps(a, b); }
  /// 0 − a (as the AVX2 kernels negate: +0 for a = +0).
  static V neg(V a) { return _mm256_sub_ps(_mm256_setzero_ps(), a); }
  /// a·b + c and c − a·b, each rounded once.
  static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V fnma(V a, V b, V c) { return _mm256_fnmadd_ps(a, b, c); }
  /// min(a, b) and max(a, b) return b when either is NaN.
  static V min(V a, V b) { return _mm256_min_ps(a, b); }
  static V max(V a, V b) { return _mm256_max_ps(a, b); }
  static V round_nearest(V a) { return _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  static V round_down(V a) { return _mm256_floor_ps(a); }
  static V abs(V a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }
  /// |mag| (sign bit clear) with the sign of sgn.
  static V copy_sign(V mag, V sgn) { return _mm256_or_ps(mag, _mm256_and_ps(_mm256_set1_ps(-0.0f), sgn)); }
  /// Lane masks of a < b and a > b (ordered), and mask ? a : b per lane.
  static V less(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
  static V greater(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
  static V select(V mask, V a, V b) { return _mm256_blendv_ps(b, a, mask); }
  /// 2^n for integral n in [-126, 127], exactly: n + 127 shifted into the exponent field.
  static V pow2(V n) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23));
  }
  /// Requests of the bytes [p, p + bytes) into L1 and into L2, one per 64-byte line.
  static void prefetch_l1(const void* p, int64_t bytes) {
    for (int64_t l = 0; l < bytes; l += 64) _mm_prefetch(static_cast<const char*>(p) + l, _MM_HINT_T0);
  }
  static void prefetch_l2(const void* p, int64_t bytes) {
    for (int64_t l = 0; l < bytes; l += 64) _mm_prefetch(static_cast<const char*>(p) + l, _MM_HINT_T1);
  }
  static float hsum(V v) { return detail::hsum(v); }
  /// out[i] = the sum of the lanes of v[i] for i < n (hsums).
  template <int n>
  static void hsums(const V* v, float* out) { detail::hsums<n>(v, out); }
  /// 8 binary16 values to float, exactly as cq::half_to_float (half8_to_float).
  static V half_to_float(const uint16_t* h) { return half8_to_float(h); }
  /// RoPE's lane pairs (vec/rope.h): p = (v0·c, v1·c), q = (v1·s, v0·s); addsub gives (v0·c − v1·s, v1·c + v0·s).
  static constexpr bool kNegateEvenSin = false;
  static V rotate_pairs(V a, V c, V s) {
    return _mm256_addsub_ps(_mm256_mul_ps(a, c), _mm256_mul_ps(_mm256_permute_ps(a, 0xB1), s));
  }
};

}  // namespace saguaro::kernels::x86_avx2::detail
