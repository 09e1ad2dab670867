// What the running CPU executes, asked at run time, and what each `saguaro compile --target` needs of it: x86 via
// cpuid (__builtin_cpu_supports), aarch64 Linux via the kernel's hardware capabilities (getauxval). One definition
// for everything that must agree on them: a bundle refusing to open on a CPU that lacks its target's extensions
// (instead of dying with SIGILL in the first kernel), `--target native` and `saguaro bench` picking the host's
// widest target, the bench program picking its widest int8 multiply-accumulate loop, and the ISA kernel tests
// skipping themselves on CPUs that lack them.
#pragma once

#include "saguaro/kernels/targets.h"

#include <cstring>
#include <string>

#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif

namespace saguaro::kernels {

/// The CPU extensions `target` needs beyond its architecture's baseline, space-separated (targets.h); "" for
/// generic and aarch64-neon; null for a name that is not a target.
inline const char* target_extensions(const char* target) {
  const TargetInfo* t = find_target(target);
  return t ? t->extensions : nullptr;
}

/// Whether this CPU has `extension` (a name target_extensions uses). Names of the other architecture are
/// reported present (code for it cannot have been built into this program, so there is nothing to refuse), and so
/// are aarch64's off Linux, where this build cannot ask.
inline bool cpu_has(const std::string& extension) {
#if defined(__x86_64__) || defined(__i386__)
  // __builtin_cpu_supports takes only string literals.
  if (extension == "avx2") return __builtin_cpu_supports("avx2");
  if (extension == "fma") return __builtin_cpu_supports("fma");
  if (extension == "f16c") return __builtin_cpu_supports("f16c");
  if (extension == "avx512f") return __builtin_cpu_supports("avx512f");
  if (extension == "avx512vl") return __builtin_cpu_supports("avx512vl");
  if (extension == "avx512bw") return __builtin_cpu_supports("avx512bw");
  if (extension == "avx512vnni") return __builtin_cpu_supports("avx512vnni");
#elif defined(__aarch64__) && defined(__linux__)
  // Linux's HWCAP_ASIMDDP and HWCAP2_I8MM (arch/arm64/include/uapi/asm/hwcap.h).
  if (extension == "asimddp") return (getauxval(AT_HWCAP) & (1ul << 20)) != 0;
  if (extension == "i8mm") return (getauxval(AT_HWCAP2) & (1ul << 13)) != 0;
#endif
  return true;
}

/// f(extension) for each extension of `target` (target_extensions), in order; nothing for a name that is not a
/// target.
template <class F>
inline void for_each_extension(const char* target, F&& f) {
  const char* list = target_extensions(target);
  for (const char* p = list ? list : ""; *p;) {
    const char* end = std::strchr(p, ' ');
    const std::string extension = end ? std::string(p, end) : std::string(p);
    f(extension);
    p = end ? end + 1 : p + extension.size();
  }
}

/// The extensions of `target` that `has` reports absent, space-separated ("" when none is, or `target` is not a
/// target name). `has` is cpu_has for this CPU; tests pass others.
template <class Has>
inline std::string missing_extensions(const char* target, Has&& has) {
  std::string missing;
  for_each_extension(target, [&](const std::string& extension) {
    if (!has(extension)) missing += (missing.empty() ? "" : " ") + extension;
  });
  return missing;
}

/// Whether the kernels of `target` run on this CPU.
inline bool cpu_runs_target(const char* target) {
  return target_extensions(target) != nullptr && missing_extensions(target, cpu_has).empty();
}

/// AVX2, FMA and F16C: the x86-avx2 target's kernels run here. Always false off x86.
inline bool cpu_runs_x86_avx2() {
#if defined(__x86_64__) || defined(__i386__)
  return cpu_runs_target("x86-avx2");
#else
  return false;
#endif
}

/// x86-avx2's extensions and AVX-512 F, VL, BW and VNNI: the x86-avx512vnni target's kernels run here. Always
/// false off x86.
inline bool cpu_runs_x86_avx512vnni() {
#if defined(__x86_64__) || defined(__i386__)
  return cpu_runs_target("x86-avx512vnni");
#else
  return false;
#endif
}

/// Whether cpu_has answers for this architecture's extensions: x86, and aarch64 on Linux.
constexpr bool cpu_reports_extensions() {
#if defined(__x86_64__) || defined(__i386__) || (defined(__aarch64__) && defined(__linux__))
  return true;
#else
  return false;
#endif
}

/// `--target native`: the first target of targets.h's widest-first table, of this program's architecture or
/// portable, whose kernels run on this CPU — x86-avx512vnni, x86-avx2 or generic on x86; aarch64-i8mm,
/// aarch64-dotprod or aarch64-neon on aarch64 (aarch64-neon off Linux, where the extensions cannot be asked).
inline const char* native_target() {
  for (const TargetInfo& t : kTargets) {
    if (t.arch != host_arch() && t.arch != TargetArch::any) continue;
    if (cpu_reports_extensions() ? cpu_runs_target(t.name) : *t.extensions == '\0') return t.name;
  }
  return "generic";
}

}  // namespace saguaro::kernels
