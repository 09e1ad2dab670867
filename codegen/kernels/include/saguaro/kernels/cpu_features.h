// What the running CPU executes, asked at run time (cpuid, via __builtin_cpu_supports): the extension sets the x86
// targets compile their kernels with (x86-avx2: -mavx2 -mfma -mf16c; x86-avx512vnni: those and -mavx512vnni
// -mavx512vl -mavx512bw). One definition for everything that must agree on them: `saguaro bench` picking the host's widest
// target, the bench program picking its widest int8 multiply-accumulate loop, and the ISA kernel tests skipping
// themselves on CPUs that lack them. Always false off x86.
#pragma once

namespace saguaro::kernels {

/// AVX2, FMA and F16C: the x86-avx2 target's kernels run here.
inline bool cpu_runs_x86_avx2() {
#if defined(__x86_64__) || defined(__i386__)
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
#else
  return false;
#endif
}

/// x86-avx2's extensions and AVX-512 F, VL, BW and VNNI: the x86-avx512vnni target's kernels run here.
inline bool cpu_runs_x86_avx512vnni() {
#if defined(__x86_64__) || defined(__i386__)
  return cpu_runs_x86_avx2() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vnni");
#else
  return false;
#endif
}

}  // namespace saguaro::kernels
