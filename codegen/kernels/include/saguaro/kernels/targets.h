// The compiler's targets, declared once: what `saguaro compile --target NAME` accepts, the flags model.cpp is
// compiled with, and what the code needs of the CPU. Read by the passes' target option check
// (kern-pack-weights, kern-fuse-cq-products), the bundle's CMake flags (codegen/emit), the CPU check a bundle
// makes before its first kernel runs and `--target native` (kernels/cpu_features.h), and the target table in
// docs/user-guide.md (checked against this table by a test). Adding a target is a row here plus its kernels'
// `#if` block in kernels.h.
#pragma once

#include <cstring>
#include <string>

namespace saguaro::kernels {

/// The instruction set a target's code runs on.
enum class TargetArch { any, x86_64, aarch64 };

struct TargetInfo {
  const char* name;        // the --target spelling
  TargetArch arch;         // `any`: portable C++ (the generic kernels)
  const char* flags;       // compiler flags of the bundle's model.cpp
  const char* extensions;  // CPU extensions beyond the architecture's baseline (cpuid / Linux hwcap names),
                           // space-separated; the bundle refuses a CPU without them
  const char* kernels;     // the kernel sets it selects (kernels.h), for the docs table
};

/// Every target, the widest first within each architecture: `--target native` takes the first one this CPU runs.
inline constexpr TargetInfo kTargets[] = {
    // AVX-512 VNNI and BW on ymm; -mavx512vl brings AVX512F with it.
    {"x86-avx512vnni", TargetArch::x86_64, "-mavx2 -mfma -mf16c -mavx512vnni -mavx512vl -mavx512bw",
     "avx2 fma f16c avx512f avx512vl avx512bw avx512vnni", "x86/avx2, int8 CQ products x86/avx512vnni"},
    {"x86-avx2", TargetArch::x86_64, "-mavx2 -mfma -mf16c", "avx2 fma f16c", "x86/avx2"},
    {"aarch64-i8mm", TargetArch::aarch64, "-march=armv8.2-a+dotprod+i8mm", "asimddp i8mm",
     "arm64/neon, int8 CQ products arm64/i8mm"},
    {"aarch64-dotprod", TargetArch::aarch64, "-march=armv8.2-a+dotprod", "asimddp",
     "arm64/neon, int8 CQ products arm64/dotprod"},
    {"aarch64-neon", TargetArch::aarch64, "-march=armv8-a", "", "arm64/neon"},
    {"generic", TargetArch::any, "", "", "generic"},
};

/// The target called `name`, or null.
inline const TargetInfo* find_target(const char* name) {
  for (const TargetInfo& t : kTargets)
    if (std::strcmp(t.name, name) == 0) return &t;
  return nullptr;
}

/// Every target name, joined by `separator`, in table order (for messages and option help).
inline std::string target_names(const char* separator = ", ") {
  std::string names;
  for (const TargetInfo& t : kTargets) names += (names.empty() ? "" : separator) + std::string(t.name);
  return names;
}

/// The architecture this program was compiled for.
constexpr TargetArch host_arch() {
#if defined(__x86_64__) || defined(__i386__)
  return TargetArch::x86_64;
#elif defined(__aarch64__)
  return TargetArch::aarch64;
#else
  return TargetArch::any;
#endif
}

}  // namespace saguaro::kernels
