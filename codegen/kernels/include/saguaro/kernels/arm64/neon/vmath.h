// Vector exp and tanh for the NEON kernels (the Cephes expf/tanhf polynomials of x86/avx2/vmath.h, FMA-evaluated).
//
// Both stay within a few ulp of glibc's expf/tanhf, so the kernels that use them (softmax, SiLU, GELU-tanh,
// soft-capping) match the generic ones to about 1e-6 relative, not bit for bit.
#pragma once

#include <arm_neon.h>

namespace saguaro::kernels::arm64_neon::detail {

/// e^x per lane: 0 below ln(FLT_MIN) (where expf is subnormal or 0), +inf above ln(FLT_MAX), NaN stays NaN.
inline float32x4_t exp_ps(float32x4_t x) {
  const float32x4_t lo = vdupq_n_f32(-87.33654475f);
  const float32x4_t hi = vdupq_n_f32(88.72283905f);
  // FMAX/FMIN return NaN when either operand is NaN, so NaN passes through.
  const float32x4_t xc = vmaxq_f32(lo, vminq_f32(hi, x));
  // x = n·ln2 + r with |r| <= ln2/2; ln2 is split in two so n·ln2_hi is exact.
  const float32x4_t n = vrndnq_f32(vmulq_f32(xc, vdupq_n_f32(1.44269504088896341f)));
  float32x4_t r = vfmsq_f32(xc, n, vdupq_n_f32(0.693359375f));
  r = vfmsq_f32(r, n, vdupq_n_f32(-2.12194440e-4f));
  float32x4_t p = vdupq_n_f32(1.9875691500e-4f);
  p = vfmaq_f32(vdupq_n_f32(1.3981999507e-3f), p, r);
  p = vfmaq_f32(vdupq_n_f32(8.3334519073e-3f), p, r);
  p = vfmaq_f32(vdupq_n_f32(4.1665795894e-2f), p, r);
  p = vfmaq_f32(vdupq_n_f32(1.6666665459e-1f), p, r);
  p = vfmaq_f32(vdupq_n_f32(5.0000001201e-1f), p, r);
  const float32x4_t y = vaddq_f32(vfmaq_f32(r, p, vmulq_f32(r, r)), vdupq_n_f32(1.0f));
  // n is in [-126, 128]; scaling by 2^(n/2) twice keeps both factors normal.
  const int32x4_t ni = vcvtq_s32_f32(n);
  const int32x4_t n1 = vshrq_n_s32(ni, 1);
  const int32x4_t n2 = vsubq_s32(ni, n1);
  const float32x4_t s1 = vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(n1, vdupq_n_s32(127)), 23));
  const float32x4_t s2 = vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(n2, vdupq_n_s32(127)), 23));
  float32x4_t e = vmulq_f32(vmulq_f32(y, s1), s2);
  e = vbslq_f32(vcltq_f32(x, lo), vdupq_n_f32(0.0f), e);
  return vbslq_f32(vcgtq_f32(x, hi), vdupq_n_f32(__builtin_huge_valf()), e);
}

/// tanh(x) per lane: an odd polynomial below |x| = 0.625, else sign(x)·(1 - 2/(e^{2|x|}+1)).
inline float32x4_t tanh_ps(float32x4_t x) {
  const float32x4_t ax = vabsq_f32(x);
  const float32x4_t s = vmulq_f32(x, x);
  float32x4_t p = vdupq_n_f32(-5.70498872745e-3f);
  p = vfmaq_f32(vdupq_n_f32(2.06390887954e-2f), p, s);
  p = vfmaq_f32(vdupq_n_f32(-5.37397155531e-2f), p, s);
  p = vfmaq_f32(vdupq_n_f32(1.33314422036e-1f), p, s);
  p = vfmaq_f32(vdupq_n_f32(-3.33332819422e-1f), p, s);
  const float32x4_t small = vfmaq_f32(x, vmulq_f32(p, s), x);
  const float32x4_t one = vdupq_n_f32(1.0f);
  const float32x4_t e = exp_ps(vaddq_f32(ax, ax));
  const float32x4_t large = vsubq_f32(one, vdivq_f32(vdupq_n_f32(2.0f), vaddq_f32(e, one)));
  // Copy x's sign onto the non-negative magnitude.
  const uint32x4_t sign_bit = vdupq_n_u32(0x80000000u);
  const float32x4_t signed_large = vbslq_f32(sign_bit, x, large);
  return vbslq_f32(vcltq_f32(ax, vdupq_n_f32(0.625f)), small, signed_large);
}

}  // namespace saguaro::kernels::arm64_neon::detail
