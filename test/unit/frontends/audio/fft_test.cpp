// The mixed-radix FFT, in float and in double, against a direct O(n^2) DFT in double precision, for
// lengths that exercise every radix (4, 2, 3, 5, a generic prime) and their mixes, including the STFT
// sizes (400, 512).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>

#include "saguaro/audio/fft.h"

namespace saguaro::audio {
namespace {

std::vector<std::complex<double>> directDft(const std::vector<std::complex<double>>& x) {
  const size_t n = x.size();
  std::vector<std::complex<double>> out(n);
  for (size_t k = 0; k < n; ++k)
    for (size_t j = 0; j < n; ++j) out[k] += x[j] * std::polar(1.0, -2.0 * M_PI * static_cast<double>(j * k % n) / n);
  return out;
}

/// ||got - want|| / ||want||.
template <typename Got>
double relativeError(const Got& got, const std::vector<std::complex<double>>& want, size_t count) {
  double err = 0, norm = 0;
  for (size_t k = 0; k < count; ++k) {
    err += std::norm(std::complex<double>(got[k].re, got[k].im) - want[k]);
    norm += std::norm(want[k]);
  }
  return std::sqrt(err / norm);
}

class FftLength : public ::testing::TestWithParam<size_t> {};

/// Relative error of ComplexFft<T> on Gaussian noise of length n.
template <typename T>
double complexError(size_t n) {
  std::mt19937 rng(static_cast<unsigned>(n));
  std::normal_distribution<double> normal;
  std::vector<ComplexOf<T>> data(n), scratch(n);
  std::vector<std::complex<double>> x(n);
  for (size_t i = 0; i < n; ++i) {
    data[i] = {static_cast<T>(normal(rng)), static_cast<T>(normal(rng))};
    x[i] = {data[i].re, data[i].im};
  }
  ComplexFft<T>(n).forward(data.data(), scratch.data());
  return relativeError(data, directDft(x), n);
}

/// Relative error of RealFft<T> on Gaussian noise; also checks that a second call gives the same bins.
template <typename T>
double realError(size_t n) {
  std::mt19937 rng(static_cast<unsigned>(n) + 1);
  std::normal_distribution<double> normal;
  std::vector<T> in(n);
  std::vector<std::complex<double>> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = in[i] = static_cast<T>(normal(rng));
  std::vector<ComplexOf<T>> out(n / 2 + 1), again(n / 2 + 1);
  RealFft<T> fft(n);
  fft.forward(in.data(), out.data());
  fft.forward(in.data(), again.data());  // the work buffers carry no state between calls
  for (size_t k = 0; k <= n / 2; ++k) EXPECT_EQ(out[k].re, again[k].re);
  return relativeError(out, directDft(x), n / 2 + 1);
}

TEST_P(FftLength, ComplexMatchesDirectDft) {
  EXPECT_LT(complexError<float>(GetParam()), 1e-6) << "float, n = " << GetParam();
  EXPECT_LT(complexError<double>(GetParam()), 1e-14) << "double, n = " << GetParam();
}

TEST_P(FftLength, RealMatchesDirectDft) {
  EXPECT_LT(realError<float>(GetParam()), 1e-6) << "float, n = " << GetParam();
  EXPECT_LT(realError<double>(GetParam()), 1e-14) << "double, n = " << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Lengths, FftLength,
                         ::testing::Values(1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 15, 16, 25, 27, 49, 60, 64, 100, 121,
                                           200, 256, 320, 400, 480, 512, 1000, 1024));

TEST(Fft, PureToneLandsInItsBin) {
  const size_t n = 400;
  std::vector<float> in(n);
  for (size_t i = 0; i < n; ++i) in[i] = static_cast<float>(std::cos(2 * M_PI * 37 * i / n));
  std::vector<Complex> out(n / 2 + 1);
  RealFft<float>(n).forward(in.data(), out.data());
  for (size_t k = 0; k <= n / 2; ++k) {
    const double mag = std::hypot(out[k].re, out[k].im);
    if (k == 37)
      EXPECT_NEAR(mag, n / 2.0, 1e-3);
    else
      EXPECT_LT(mag, 1e-3) << "bin " << k;
  }
}

}  // namespace
}  // namespace saguaro::audio
