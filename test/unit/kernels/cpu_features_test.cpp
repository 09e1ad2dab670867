// What each --target needs of the CPU, and what a CPU lacking some of it is told (kernels/cpu_features.h).
#include "saguaro/kernels/cpu_features.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <string>

namespace {

using saguaro::kernels::cpu_runs_target;
using saguaro::kernels::missing_extensions;
using saguaro::kernels::native_target;
using saguaro::kernels::target_extensions;

/// A CPU that has everything but `absent`.
auto without(std::set<std::string> absent) {
  return [absent](const std::string& e) { return absent.count(e) == 0; };
}

TEST(CpuFeatures, EveryTargetNamesItsExtensions) {
  EXPECT_STREQ(target_extensions("generic"), "");
  EXPECT_STREQ(target_extensions("x86-avx2"), "avx2 fma f16c");
  EXPECT_STREQ(target_extensions("x86-avx512vnni"), "avx2 fma f16c avx512f avx512vl avx512bw avx512vnni");
  EXPECT_STREQ(target_extensions("aarch64-neon"), "");
  EXPECT_STREQ(target_extensions("aarch64-dotprod"), "asimddp");
  EXPECT_STREQ(target_extensions("aarch64-i8mm"), "asimddp i8mm");
  EXPECT_EQ(target_extensions("x86-avx512"), nullptr);
  EXPECT_EQ(target_extensions("native"), nullptr);  // resolved by the driver before anything is compiled
}

TEST(CpuFeatures, MissingExtensionsAreListedInTheTargetsOrder) {
  EXPECT_EQ(missing_extensions("x86-avx512vnni", without({"avx512vnni"})), "avx512vnni");
  EXPECT_EQ(missing_extensions("x86-avx512vnni", without({"avx512vnni", "avx512bw", "f16c"})),
            "f16c avx512bw avx512vnni");
  EXPECT_EQ(missing_extensions("x86-avx2", without({"avx512vnni"})), "");
  EXPECT_EQ(missing_extensions("x86-avx2", without({"avx2", "fma", "f16c"})), "avx2 fma f16c");
  EXPECT_EQ(missing_extensions("aarch64-i8mm", without({"i8mm"})), "i8mm");
  EXPECT_EQ(missing_extensions("aarch64-dotprod", without({"i8mm"})), "");
  EXPECT_EQ(missing_extensions("aarch64-i8mm", without({"asimddp", "i8mm"})), "asimddp i8mm");
  // Nothing to lack: generic and ARMv8.0 code, and names that are no target (the emitter only writes targets).
  const auto nothing = [](const std::string&) { return false; };
  EXPECT_EQ(missing_extensions("generic", nothing), "");
  EXPECT_EQ(missing_extensions("aarch64-neon", nothing), "");
  EXPECT_EQ(missing_extensions("x86-avx3", nothing), "");
}

TEST(CpuFeatures, NativeTargetRunsHereAndIsTheWidest) {
  const std::string native = native_target();
  EXPECT_TRUE(cpu_runs_target(native.c_str())) << native;
#if defined(__x86_64__)
  if (cpu_runs_target("x86-avx512vnni"))
    EXPECT_EQ(native, "x86-avx512vnni");
  else if (cpu_runs_target("x86-avx2"))
    EXPECT_EQ(native, "x86-avx2");
  else
    EXPECT_EQ(native, "generic");
  // cpu_runs_target agrees with what the compiler's own checks of this CPU say.
  EXPECT_EQ(cpu_runs_target("x86-avx2"), __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                                             __builtin_cpu_supports("f16c"));
#endif
  // e2e_aarch64 runs these tests cross-compiled under qemu on cores whose widest target it knows.
  if (const char* want = std::getenv("SAGUARO_EXPECT_NATIVE_TARGET")) EXPECT_EQ(native, want);
  EXPECT_FALSE(cpu_runs_target("no-such-target"));
}

}  // namespace
