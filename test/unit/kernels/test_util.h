// Shared helpers for kernel tests: seeded random data and magnitude-scaled comparison.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace saguaro::kernels::test {

/// n uniform floats in [lo, hi) from a fixed seed.
inline std::vector<float> RandomFloats(size_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(gen);
  return v;
}

/// Expects |got-want| <= rtol·max(1, max|want|) elementwise over n values.
inline void ExpectClose(const float* got, const double* want, size_t n, double rtol = 1e-5) {
  double scale = 1.0;
  for (size_t i = 0; i < n; ++i) scale = std::max(scale, std::fabs(want[i]));
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    const double err = std::fabs(static_cast<double>(got[i]) - want[i]);
    if (!(err <= rtol * scale) && bad++ < 5) {
      ADD_FAILURE() << "index " << i << ": got " << got[i] << " want " << want[i] << " (scale " << scale << ")";
    }
  }
  EXPECT_EQ(bad, 0u) << "mismatching values out of " << n;
}

/// Vector overload of ExpectClose.
inline void ExpectClose(const std::vector<float>& got, const std::vector<double>& want, double rtol = 1e-5) {
  ASSERT_EQ(got.size(), want.size());
  ExpectClose(got.data(), want.data(), got.size(), rtol);
}

}  // namespace saguaro::kernels::test
