// Vector exp and tanh for the SIMD kernels (Cephes expf/tanhf polynomials, FMA-evaluated), over a float32 vector
// micro-op set F (x86_avx2::detail::F32x8, arm64_neon::detail::F32x4).
//
// Both stay within a few ulp of glibc's expf/tanhf, so the kernels that use them (softmax, SiLU, GELU-tanh,
// soft-capping) match the generic ones to about 1e-6 relative, not bit for bit.
#pragma once

namespace saguaro::kernels::vec {

/// y·2^n for integral n in [-252, 254], as two multiplications by 2^(n/2) (both factors normal): n1 = ⌊n/2⌋ and
/// n − n1 are exact in float, so this is the same product whichever ISA builds the powers.
template <class F>
inline typename F::V scale_pow2(typename F::V y, typename F::V n) {
  const typename F::V n1 = F::round_down(F::mul(n, F::set1(0.5f)));
  return F::mul(F::mul(y, F::pow2(n1)), F::pow2(F::sub(n, n1)));
}

/// e^x per lane: 0 below ln(FLT_MIN) (where expf is subnormal or 0), +inf above ln(FLT_MAX), NaN stays NaN.
template <class F>
inline typename F::V exp(typename F::V x) {
  using V = typename F::V;
  const V lo = F::set1(-87.33654475f);
  const V hi = F::set1(88.72283905f);
  // Either ISA's min/max passes a NaN x through (F32x8 returns its second operand, F32x4 the NaN).
  const V xc = F::max(lo, F::min(hi, x));
  // x = n·ln2 + r with |r| <= ln2/2; ln2 is split in two so n·ln2_hi is exact.
  const V n = F::round_nearest(F::mul(xc, F::set1(1.44269504088896341f)));
  V r = F::fnma(n, F::set1(0.693359375f), xc);
  r = F::fnma(n, F::set1(-2.12194440e-4f), r);
  V p = F::set1(1.9875691500e-4f);
  p = F::fma(p, r, F::set1(1.3981999507e-3f));
  p = F::fma(p, r, F::set1(8.3334519073e-3f));
  p = F::fma(p, r, F::set1(4.1665795894e-2f));
  p = F::fma(p, r, F::set1(1.6666665459e-1f));
  p = F::fma(p, r, F::set1(5.0000001201e-1f));
  const V y = F::add(F::fma(p, F::mul(r, r), r), F::set1(1.0f));
  // n is in [-126, 128].
  const V e = vec::scale_pow2<F>(y, n);
  return F::select(F::greater(x, hi), F::set1(__builtin_huge_valf()), F::select(F::less(x, lo), F::zero(), e));
}

/// tanh(x) per lane: an odd polynomial below |x| = 0.625, else sign(x)·(1 - 2/(e^{2|x|}+1)).
template <class F>
inline typename F::V tanh(typename F::V x) {
  using V = typename F::V;
  const V ax = F::abs(x);
  const V s = F::mul(x, x);
  V p = F::set1(-5.70498872745e-3f);
  p = F::fma(p, s, F::set1(2.06390887954e-2f));
  p = F::fma(p, s, F::set1(-5.37397155531e-2f));
  p = F::fma(p, s, F::set1(1.33314422036e-1f));
  p = F::fma(p, s, F::set1(-3.33332819422e-1f));
  const V small = F::fma(F::mul(p, s), x, x);
  const V one = F::set1(1.0f);
  const V e = vec::exp<F>(F::add(ax, ax));
  const V large = F::copy_sign(F::sub(one, F::div(F::set1(2.0f), F::add(e, one))), x);
  return F::select(F::less(ax, F::set1(0.625f)), small, large);
}

}  // namespace saguaro::kernels::vec
