// Stockham mixed-radix FFT. Stage s splits sub-transforms of length `span` into `radix` interleaved
// ones of length span / radix (decimation in frequency):
//   out[q + stride (radix i + j)] = w^(i j) * sum_k in[q + stride (i + k m)] exp(-2 pi i j k / radix),
// with m = span / radix, w = exp(-2 pi i / span), i < m, q < stride. The next stage runs on
// span / radix with stride * radix. Butterflies for radix 2, 3, 4 and 5 are written out; other
// primes (any n is accepted) use a direct DFT of the radix.
#include "saguaro/audio/fft.h"

#include <cmath>
#include <utility>

#include "saguaro/audio/error.h"

namespace saguaro::audio {
namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;

template <typename T>
using C = ComplexOf<T>;

template <typename T>
inline C<T> operator+(C<T> a, C<T> b) { return {a.re + b.re, a.im + b.im}; }
template <typename T>
inline C<T> operator-(C<T> a, C<T> b) { return {a.re - b.re, a.im - b.im}; }
template <typename T>
inline C<T> operator*(C<T> a, C<T> b) { return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
template <typename T>
inline C<T> scale(C<T> a, T s) { return {a.re * s, a.im * s}; }
/// -i * a: a quarter turn clockwise.
template <typename T>
inline C<T> mulMinusI(C<T> a) { return {a.im, -a.re}; }
template <typename T>
inline C<T> conj(C<T> a) { return {a.re, -a.im}; }

/// exp(-2 pi i k / n), computed in double.
template <typename T>
C<T> root(size_t k, size_t n) {
  const double a = -kTwoPi * static_cast<double>(k) / static_cast<double>(n);
  return {static_cast<T>(std::cos(a)), static_cast<T>(std::sin(a))};
}

/// Radices in the order the stages use them: 4s first (fewest multiplies per point), then 2, 3, 5,
/// then whatever prime factors remain.
std::vector<size_t> factorize(size_t n) {
  std::vector<size_t> radices;
  for (size_t r : {4, 2, 3, 5})
    while (n % r == 0) {
      radices.push_back(r);
      n /= r;
    }
  for (size_t r = 7; n > 1; r += 2)
    while (n % r == 0) {
      radices.push_back(r);
      n /= r;
    }
  return radices;
}

}  // namespace

template <typename T>
ComplexFft<T>::ComplexFft(size_t n) : n_(n) {
  if (n == 0) throw AudioError("FFT length 0");
  size_t span = n, stride = 1;
  for (size_t radix : factorize(n)) {
    stages_.push_back({radix, span, stride, twiddles_.size()});
    const size_t m = span / radix;
    for (size_t i = 0; i < m; ++i)
      for (size_t j = 1; j < radix; ++j) twiddles_.push_back(root<T>(i * j, span));
    span = m;
    stride *= radix;
  }
}

template <typename T>
void ComplexFft<T>::forward(C<T>* data, C<T>* scratch) const {
  C<T>* in = data;
  C<T>* out = scratch;
  for (const Stage& s : stages_) {
    runStage(s, in, out);
    std::swap(in, out);
  }
  if (in != data)
    for (size_t i = 0; i < n_; ++i) data[i] = in[i];
}

template <typename T>
void ComplexFft<T>::runStage(const Stage& s, const C<T>* in, C<T>* out) const {
  const size_t m = s.span / s.radix, st = s.stride;
  const C<T>* tw = twiddles_.data() + s.twiddle;
  switch (s.radix) {
    case 2:
      for (size_t i = 0; i < m; ++i, tw += 1)
        for (size_t q = 0; q < st; ++q) {
          const C<T> a0 = in[q + st * i], a1 = in[q + st * (i + m)];
          out[q + st * 2 * i] = a0 + a1;
          out[q + st * (2 * i + 1)] = (a0 - a1) * tw[0];
        }
      return;
    case 3: {
      const T h = static_cast<T>(std::sqrt(0.75));  // sin(2 pi / 3)
      for (size_t i = 0; i < m; ++i, tw += 2)
        for (size_t q = 0; q < st; ++q) {
          const C<T> a0 = in[q + st * i], a1 = in[q + st * (i + m)], a2 = in[q + st * (i + 2 * m)];
          const C<T> sum = a1 + a2, rot = mulMinusI(scale(a1 - a2, h));
          const C<T> mid = a0 - scale(sum, T(0.5));
          out[q + st * 3 * i] = a0 + sum;
          out[q + st * (3 * i + 1)] = (mid + rot) * tw[0];
          out[q + st * (3 * i + 2)] = (mid - rot) * tw[1];
        }
      return;
    }
    case 4:
      for (size_t i = 0; i < m; ++i, tw += 3)
        for (size_t q = 0; q < st; ++q) {
          const C<T> a0 = in[q + st * i], a1 = in[q + st * (i + m)];
          const C<T> a2 = in[q + st * (i + 2 * m)], a3 = in[q + st * (i + 3 * m)];
          const C<T> t0 = a0 + a2, t1 = a0 - a2, t2 = a1 + a3, t3 = mulMinusI(a1 - a3);
          out[q + st * 4 * i] = t0 + t2;
          out[q + st * (4 * i + 1)] = (t1 + t3) * tw[0];
          out[q + st * (4 * i + 2)] = (t0 - t2) * tw[1];
          out[q + st * (4 * i + 3)] = (t1 - t3) * tw[2];
        }
      return;
    case 5: {
      const T c1 = static_cast<T>(std::cos(kTwoPi / 5)), c2 = static_cast<T>(std::cos(2 * kTwoPi / 5));
      const T s1 = static_cast<T>(std::sin(kTwoPi / 5)), s2 = static_cast<T>(std::sin(2 * kTwoPi / 5));
      for (size_t i = 0; i < m; ++i, tw += 4)
        for (size_t q = 0; q < st; ++q) {
          const C<T> a0 = in[q + st * i], a1 = in[q + st * (i + m)], a2 = in[q + st * (i + 2 * m)];
          const C<T> a3 = in[q + st * (i + 3 * m)], a4 = in[q + st * (i + 4 * m)];
          const C<T> s14 = a1 + a4, d14 = a1 - a4, s23 = a2 + a3, d23 = a2 - a3;
          const C<T> r1 = a0 + scale(s14, c1) + scale(s23, c2);
          const C<T> r2 = a0 + scale(s14, c2) + scale(s23, c1);
          const C<T> i1 = mulMinusI(scale(d14, s1) + scale(d23, s2));
          const C<T> i2 = mulMinusI(scale(d14, s2) - scale(d23, s1));
          out[q + st * 5 * i] = a0 + s14 + s23;
          out[q + st * (5 * i + 1)] = (r1 + i1) * tw[0];
          out[q + st * (5 * i + 2)] = (r2 + i2) * tw[1];
          out[q + st * (5 * i + 3)] = (r2 - i2) * tw[2];
          out[q + st * (5 * i + 4)] = (r1 - i1) * tw[3];
        }
      return;
    }
    default: {
      // A prime radix > 5: direct DFT of the radix (only reached for unusual transform lengths).
      const size_t p = s.radix;
      for (size_t i = 0; i < m; ++i, tw += p - 1)
        for (size_t q = 0; q < st; ++q)
          for (size_t j = 0; j < p; ++j) {
            C<T> acc{0, 0};
            for (size_t k = 0; k < p; ++k) acc = acc + in[q + st * (i + k * m)] * root<T>(j * k % p, p);
            out[q + st * (p * i + j)] = j == 0 ? acc : acc * tw[j - 1];
          }
      return;
    }
  }
}

template <typename T>
RealFft<T>::RealFft(size_t n) : n_(n), half_(n % 2 == 0 ? n / 2 : n) {
  const size_t m = half_.size();
  work_.resize(m);
  scratch_.resize(m);
  if (n % 2 == 0)
    for (size_t k = 0; k < m; ++k) split_.push_back(root<T>(k, n));
}

template <typename T>
void RealFft<T>::forward(const T* in, C<T>* out) {
  const size_t m = half_.size();
  if (n_ % 2 != 0) {  // odd length: a plain complex transform of the real input
    for (size_t j = 0; j < m; ++j) work_[j] = {in[j], T(0)};
    half_.forward(work_.data(), scratch_.data());
    for (size_t k = 0; k <= n_ / 2; ++k) out[k] = work_[k];
    return;
  }
  for (size_t j = 0; j < m; ++j) work_[j] = {in[2 * j], in[2 * j + 1]};
  half_.forward(work_.data(), scratch_.data());
  // Z = E + i O, with E and O the transforms of the even and odd samples; X[k] = E[k] + w^k O[k].
  out[0] = {work_[0].re + work_[0].im, T(0)};
  out[m] = {work_[0].re - work_[0].im, T(0)};
  for (size_t k = 1; k < m; ++k) {
    const C<T> z = work_[k], zc = conj(work_[m - k]);
    const C<T> even = scale(z + zc, T(0.5)), odd = scale(mulMinusI(z - zc), T(0.5));
    out[k] = even + odd * split_[k];
  }
}

template class ComplexFft<float>;
template class ComplexFft<double>;
template class RealFft<float>;
template class RealFft<double>;

}  // namespace saguaro::audio
