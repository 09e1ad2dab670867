// The kernel set that generated model code calls (contract: docs/internals.md, "Kernels").
//
// Every kernel has a generic version in generic/*.h (namespace saguaro::kernels::generic) that always compiles.
// An ISA set defines only the kernels it overrides, in its own namespace; fallback.h chains each ISA namespace to
// the set below it (down to generic), and this header nominates the selected set in saguaro::kernels, so
// `saguaro::kernels::foo` is the most specific foo the target has. The ISA tests compare each ISA set with the
// generic one.
//
// Numerics: float32, no -ffast-math. The generic kernels accumulate products in the order llama2.c uses and
// must not be contracted into FMAs (the saguaro_kernels CMake target passes -ffp-contract=off), so that a
// compiled llama2.c checkpoint reproduces run.c's logits bit for bit. ISA kernels may reorder sums and use FMA
// intrinsics; they stay within 1e-5 of the output's scale of the generic ones (docs/internals.md, "x86 AVX2
// kernels").
#pragma once

#include "saguaro/kernels/fallback.h"
#include "saguaro/kernels/generic/activation.h"
#include "saguaro/kernels/generic/attention.h"
#include "saguaro/kernels/generic/attention_full.h"
#include "saguaro/kernels/generic/conformer.h"
#include "saguaro/kernels/generic/cq.h"
#include "saguaro/kernels/generic/cq_i8.h"
#include "saguaro/kernels/generic/elementwise.h"
#include "saguaro/kernels/generic/embed.h"
#include "saguaro/kernels/generic/matmul.h"
#include "saguaro/kernels/generic/patches.h"
#include "saguaro/kernels/generic/probe.h"
#include "saguaro/kernels/generic/rmsnorm.h"
#include "saguaro/kernels/generic/rope.h"

// x86 with AVX2 and FMA (-mavx2 -mfma, the x86-avx2 and x86-avx512vnni targets): x86/avx2/*.h.
#if defined(__AVX2__) && defined(__FMA__)
#define SAGUARO_KERNELS_X86_AVX2 1
#include "saguaro/kernels/x86/avx2/activation.h"
#include "saguaro/kernels/x86/avx2/attention.h"
#include "saguaro/kernels/x86/avx2/cq.h"
#include "saguaro/kernels/x86/avx2/cq_i8.h"
#include "saguaro/kernels/x86/avx2/matmul.h"
#include "saguaro/kernels/x86/avx2/rmsnorm.h"
#include "saguaro/kernels/x86/avx2/rope.h"
#include "saguaro/kernels/x86/avx2/vmath.h"
// The int8 CQ kernels also come with AVX-512 VNNI (vpdpbusd on ymm, the x86-avx512vnni target): the header compiles
// to nothing unless the target enables AVX512VNNI and AVX512VL, and then defines SAGUARO_KERNELS_X86_AVX512VNNI.
#include "saguaro/kernels/x86/avx512vnni/cq_i8.h"
// 64-bit ARM (every aarch64 target: ARMv8.0 Advanced SIMD, no SVE/fp16 arithmetic; dotprod/i8mm for the int8 CQ
// kernels only, below): arm64/neon/*.h.
// NEON is always on there, so SAGUARO_KERNELS_GENERIC asks for the generic set instead (the generic kernel tests).
#elif defined(__aarch64__) && defined(__ARM_NEON) && !defined(SAGUARO_KERNELS_GENERIC)
#define SAGUARO_KERNELS_ARM64_NEON 1
#include "saguaro/kernels/arm64/neon/activation.h"
#include "saguaro/kernels/arm64/neon/attention.h"
#include "saguaro/kernels/arm64/neon/cq.h"
#include "saguaro/kernels/arm64/neon/cq_i8.h"
#include "saguaro/kernels/arm64/neon/matmul.h"
#include "saguaro/kernels/arm64/neon/rmsnorm.h"
#include "saguaro/kernels/arm64/neon/rope.h"
#include "saguaro/kernels/arm64/neon/vmath.h"
// The int8 CQ kernels also come for FEAT_DotProd (SDOT) and FEAT_I8MM (SMMLA): each header compiles to nothing unless
// the target enables its extension (__ARM_FEATURE_DOTPROD, __ARM_FEATURE_MATMUL_INT8) and then defines
// SAGUARO_KERNELS_ARM64_DOTPROD / SAGUARO_KERNELS_ARM64_I8MM; the highest level present is selected below.
#include "saguaro/kernels/arm64/dotprod/cq_i8.h"
#include "saguaro/kernels/arm64/i8mm/cq_i8.h"
#endif

namespace saguaro::kernels {

// The selected set: the most specific ISA namespace the target's macros enable (fallback.h supplies the rest).
#if defined(SAGUARO_KERNELS_X86_AVX512VNNI)
using namespace x86_avx512vnni;
#elif defined(SAGUARO_KERNELS_X86_AVX2)
using namespace x86_avx2;
#elif defined(SAGUARO_KERNELS_ARM64_I8MM)
using namespace arm64_i8mm;
#elif defined(SAGUARO_KERNELS_ARM64_DOTPROD)
using namespace arm64_dotprod;
#elif defined(SAGUARO_KERNELS_ARM64_NEON)
using namespace arm64_neon;
#else
using namespace generic;
#endif

/// CQ output projection on int8 activations, over the selected cq_matmul_i8: all rows of xq when `all`, else only
/// the last row into y[0..N). The call is qualified because unqualified lookup here sees every set of the chain.
template <int K, int N, int Bits, int Layout>
inline void cq_logits_i8(int32_t rows, bool all, const void* xq, const void* codes, const void* norms,
                         const void* codebook, float* y, const Parallel* par = nullptr) {
  if (all) {
    kernels::cq_matmul_i8<K, N, Bits, Layout>(rows, xq, codes, norms, codebook, y, par);
  } else {
    const void* last = static_cast<const uint8_t*>(xq) + static_cast<int64_t>(rows - 1) * cq::act_row_bytes(K);
    kernels::cq_matmul_i8<K, N, Bits, Layout>(1, last, codes, norms, codebook, y, par);
  }
}

}  // namespace saguaro::kernels
