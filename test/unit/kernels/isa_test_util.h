// Comparisons of an ISA kernel's output with the generic kernel's, for the ISA kernel tests (neon_*_test.cpp).
// avx2_test_util.h holds the same two checks for the AVX2 tests, next to its CPU check.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "test_util.h"

namespace saguaro::kernels::test {

/// Expects |got[i] − want[i]| <= rtol·(|want[i]| + scale) for all i < n, scale = max_i |want[i]|: ISA kernels
/// reorder float sums, so they agree with the generic ones to a relative error of the output's scale.
inline void ExpectNearGeneric(const float* got, const float* want, size_t n, double rtol = 1e-5) {
  double scale = 0.0;
  for (size_t i = 0; i < n; ++i) scale = std::max(scale, std::fabs(static_cast<double>(want[i])));
  size_t bad = 0;
  double worst = 0.0;
  for (size_t i = 0; i < n; ++i) {
    const double err = std::fabs(static_cast<double>(got[i]) - want[i]);
    const double bound = rtol * (std::fabs(static_cast<double>(want[i])) + scale);
    if (scale > 0.0) worst = std::max(worst, err / scale);
    if (!(err <= bound) && bad++ < 5) {
      ADD_FAILURE() << "index " << i << ": isa " << got[i] << " generic " << want[i] << " (scale " << scale << ")";
    }
  }
  EXPECT_EQ(bad, 0u) << "mismatching values out of " << n << "; worst |isa-generic|/scale " << worst;
}

/// Expects bitwise-equal floats (for kernels that perform the generic kernel's float operations in order).
inline void ExpectBitEqual(const float* got, const float* want, size_t n) {
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    if (std::memcmp(got + i, want + i, sizeof(float)) != 0 && bad++ < 5) {
      ADD_FAILURE() << "index " << i << ": isa " << got[i] << " generic " << want[i];
    }
  }
  EXPECT_EQ(bad, 0u) << "differing values out of " << n;
}

}  // namespace saguaro::kernels::test
