// Shared helpers for the ISA kernel tests (isa_*_test.cpp): the ISA under test, the run-time CPU check and the
// comparisons of an ISA kernel's output with the generic kernel's.
//
// Every isa_*_test.cpp is compiled once per ISA with SAGUARO_TEST_ISA naming the kernel namespace under test:
// x86_avx2 (kernels_avx2_tests, built with -mavx2 -mfma; kernels_avx512vnni_tests, the same with AVX-512 VNNI,
// where the int8 CQ kernels come from x86_avx512vnni) or arm64_neon (kernels_neon_tests, aarch64). The tests
// call that namespace as `isa::`; code specific to one ISA sits under SAGUARO_TEST_X86_AVX2 or
// SAGUARO_TEST_ARM64_NEON.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "saguaro/kernels/cpu_features.h"
#include "saguaro/kernels/kernels.h"
#include "test_util.h"

#ifndef SAGUARO_TEST_ISA
#error "the ISA kernel tests need -DSAGUARO_TEST_ISA=x86_avx2 or -DSAGUARO_TEST_ISA=arm64_neon"
#endif

// kernels.h selects the ISA set from the compiler's target macros; the KernelsHeaderSelectsIsa tests check that it
// is the one SAGUARO_TEST_ISA names.
#if defined(SAGUARO_KERNELS_X86_AVX512VNNI)
#define SAGUARO_TEST_X86_AVX2 1
/// Skips the current test on a CPU without the x86-avx512vnni target's extensions (the binary is built with them).
#define SAGUARO_REQUIRE_ISA()                                                  \
  if (!saguaro::kernels::cpu_runs_x86_avx512vnni()) {                          \
    GTEST_SKIP() << "this CPU lacks AVX2, FMA, F16C, AVX512F, AVX512VL or AVX512VNNI"; \
  }
#elif defined(SAGUARO_KERNELS_X86_AVX2)
#define SAGUARO_TEST_X86_AVX2 1
/// Skips the current test on a CPU without AVX2, FMA and F16C (the binary itself is built with them).
#define SAGUARO_REQUIRE_ISA()                     \
  if (!saguaro::kernels::cpu_runs_x86_avx2()) {   \
    GTEST_SKIP() << "this CPU lacks AVX2, FMA or F16C"; \
  }
#elif defined(SAGUARO_KERNELS_ARM64_NEON)
#define SAGUARO_TEST_ARM64_NEON 1
/// NEON is part of every aarch64 CPU: nothing to check.
#define SAGUARO_REQUIRE_ISA() \
  do {                        \
  } while (0)
#else
#error "the ISA kernel tests are compiled with -mavx2 -mfma (x86_avx2) or for aarch64 (arm64_neon)"
#endif

namespace saguaro::kernels::test {

namespace isa = saguaro::kernels::SAGUARO_TEST_ISA;

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
