// Vector exp and tanh for the AVX2 kernels (Cephes expf/tanhf polynomials, FMA-evaluated).
//
// Both stay within a few ulp of glibc's expf/tanhf, so the kernels that use them (softmax, SiLU, GELU-tanh,
// soft-capping) match the generic ones to about 1e-6 relative, not bit for bit.
#pragma once

#include <immintrin.h>

namespace saguaro::kernels::x86_avx2::detail {

/// e^x per lane: 0 below ln(FLT_MIN) (where expf is subnormal or 0), +inf above ln(FLT_MAX), NaN stays NaN.
inline __m256 exp_ps(__m256 x) {
  const __m256 lo = _mm256_set1_ps(-87.33654475f);
  const __m256 hi = _mm256_set1_ps(88.72283905f);
  // min/max return their second operand when either is NaN, so NaN passes through.
  const __m256 xc = _mm256_max_ps(lo, _mm256_min_ps(hi, x));
  // x = n·ln2 + r with |r| <= ln2/2; ln2 is split in two so n·ln2_hi is exact.
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(xc, _mm256_set1_ps(1.44269504088896341f)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), xc);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
  __m256 p = _mm256_set1_ps(1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
  const __m256 y = _mm256_add_ps(_mm256_fmadd_ps(p, _mm256_mul_ps(r, r), r), _mm256_set1_ps(1.0f));
  // n is in [-126, 128]; scaling by 2^(n/2) twice keeps both factors normal.
  const __m256i ni = _mm256_cvtps_epi32(n);
  const __m256i n1 = _mm256_srai_epi32(ni, 1);
  const __m256i n2 = _mm256_sub_epi32(ni, n1);
  const __m256 s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n1, _mm256_set1_epi32(127)), 23));
  const __m256 s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n2, _mm256_set1_epi32(127)), 23));
  __m256 e = _mm256_mul_ps(_mm256_mul_ps(y, s1), s2);
  e = _mm256_blendv_ps(e, _mm256_setzero_ps(), _mm256_cmp_ps(x, lo, _CMP_LT_OQ));
  return _mm256_blendv_ps(e, _mm256_set1_ps(__builtin_huge_valf()), _mm256_cmp_ps(x, hi, _CMP_GT_OQ));
}

/// tanh(x) per lane: an odd polynomial below |x| = 0.625, else sign(x)·(1 - 2/(e^{2|x|}+1)).
inline __m256 tanh_ps(__m256 x) {
  const __m256 sign_bit = _mm256_set1_ps(-0.0f);
  const __m256 ax = _mm256_andnot_ps(sign_bit, x);
  const __m256 s = _mm256_mul_ps(x, x);
  __m256 p = _mm256_set1_ps(-5.70498872745e-3f);
  p = _mm256_fmadd_ps(p, s, _mm256_set1_ps(2.06390887954e-2f));
  p = _mm256_fmadd_ps(p, s, _mm256_set1_ps(-5.37397155531e-2f));
  p = _mm256_fmadd_ps(p, s, _mm256_set1_ps(1.33314422036e-1f));
  p = _mm256_fmadd_ps(p, s, _mm256_set1_ps(-3.33332819422e-1f));
  const __m256 small = _mm256_fmadd_ps(_mm256_mul_ps(p, s), x, x);
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 e = exp_ps(_mm256_add_ps(ax, ax));
  __m256 large = _mm256_sub_ps(one, _mm256_div_ps(_mm256_set1_ps(2.0f), _mm256_add_ps(e, one)));
  large = _mm256_or_ps(large, _mm256_and_ps(sign_bit, x));
  return _mm256_blendv_ps(large, small, _mm256_cmp_ps(ax, _mm256_set1_ps(0.625f), _CMP_LT_OQ));
}

}  // namespace saguaro::kernels::x86_avx2::detail
