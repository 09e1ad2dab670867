// Shared helpers for kernel tests: seeded random data, the compiler's binary16, magnitude-scaled comparison and a
// serial thread pool.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "saguaro/kernels/parallel.h"

namespace saguaro::kernels::test {

/// n uniform floats in [lo, hi) from a fixed seed.
inline std::vector<float> RandomFloats(size_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(gen);
  return v;
}

// IEEE binary16 as the compiler implements it (round to nearest even), so that tests check the kernels' half
// conversions against something independent of their bit manipulation (cq::half_to_float, float_to_half, F16C,
// FCVTL): _Float16 on x86-64, the ARM C language extensions' __fp16 on aarch64 (GCC 12's C++ has no _Float16
// there).
#if defined(__aarch64__)
using CompilerHalf = __fp16;
#else
using CompilerHalf = _Float16;
#endif

/// The binary16 bits of x, rounded by the compiler.
inline uint16_t CompilerHalfBits(float x) {
  const CompilerHalf h = static_cast<CompilerHalf>(x);
  uint16_t bits;
  std::memcpy(&bits, &h, sizeof bits);
  return bits;
}

/// The value of binary16 bits, converted by the compiler.
inline double CompilerHalfValue(uint16_t bits) {
  CompilerHalf h;
  std::memcpy(&h, &bits, sizeof h);
  return static_cast<double>(h);
}

/// The binary16 values a test draws (random signs throughout).
enum class HalfKind {
  kNormal,     // rounded from uniform [-1, 1)
  kSubnormal,  // subnormals and zeros (|h| < 2^-14)
  kLarge,      // rounded from uniform [-65504, 65504)
  kSpecial,    // ±0, the smallest and largest subnormal, the smallest normal, ±1, 1/3, ±65504 (the largest)
};

/// n binary16 bit patterns of `kind` from a fixed seed; all finite.
inline std::vector<uint16_t> RandomHalves(size_t n, uint32_t seed, HalfKind kind) {
  static constexpr uint16_t kSpecials[] = {0x0000, 0x0001, 0x03FF, 0x0400, 0x3C00, 0x3555, 0x7BFF};
  std::mt19937 gen(seed);
  std::vector<uint16_t> h(n);
  for (auto& v : h) {
    const uint16_t sign = (gen() & 1) ? 0x8000 : 0;
    switch (kind) {
      case HalfKind::kNormal:
        v = CompilerHalfBits(std::uniform_real_distribution<float>(-1.0f, 1.0f)(gen));
        break;
      case HalfKind::kSubnormal:
        v = static_cast<uint16_t>(sign | (gen() & 0x3FF));
        break;
      case HalfKind::kLarge:
        v = CompilerHalfBits(std::uniform_real_distribution<float>(-65504.0f, 65504.0f)(gen));
        break;
      case HalfKind::kSpecial:
        v = static_cast<uint16_t>(sign | kSpecials[gen() % (sizeof kSpecials / sizeof kSpecials[0])]);
        break;
    }
  }
  return h;
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

/// A thread pool for thread-split tests: runs the thread indices one after another, last first, and counts how
/// often a kernel handed it work (a kernel that stayed on one thread did not).
struct ReversedPool {
  explicit ReversedPool(int32_t threads) : par{threads, this, &Run} {}
  static void Run(void* pool, ParallelTask task, void* arg) {
    ReversedPool& self = *static_cast<ReversedPool*>(pool);
    ++self.runs;
    for (int32_t t = self.par.threads - 1; t >= 0; --t) task(arg, t);
  }
  Parallel par;
  int runs = 0;
};

/// Runs run(y, par) for an output y of n floats on one thread (par null) and split over 2, 3 and 5 threads
/// (ReversedPool): expects the kernel to hand the pool its work and every split to give the one-thread output
/// bit for bit.
template <class F>
void ExpectThreadSplitBitIdentical(size_t n, F&& run) {
  std::vector<float> want(n);
  run(want.data(), nullptr);
  for (int32_t threads : {2, 3, 5}) {
    ReversedPool pool(threads);
    std::vector<float> got(n, -1.0f);
    run(got.data(), &pool.par);
    EXPECT_EQ(pool.runs, 1) << "not split over " << threads << " threads";
    EXPECT_EQ(0, std::memcmp(got.data(), want.data(), n * sizeof(float))) << "differs with " << threads << " threads";
  }
}

}  // namespace saguaro::kernels::test
