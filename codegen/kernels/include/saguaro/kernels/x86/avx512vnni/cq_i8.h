// Codebook-quantized (CQ) kernels on int8 activations with AVX-512 VNNI on 256-bit vectors (the x86-avx512vnni
// target: AVX2 + AVX512F/VL/BW/VNNI, e.g. AMD Zen 4, Intel Ice Lake and later Xeons). Contracts and numerics:
// generic/cq_i8.h; bit for bit equal to it. (BW: x86/avx2/cq_i8.h, compiled with it, turns 1-bit and 3-bit codes'
// bit streams into mask registers with kmovd and applies them with masked byte moves/adds.)
//
// vpdpbusd adds the four products w·a of unsigned bytes w and signed bytes a into each int32 lane, exactly — what
// vpmaddubsw + vpmaddwd + vpaddd compute in x86/avx2/cq_i8.h (whose |pair sums| never saturate), in one instruction
// instead of three, two of them on the multiply pipes. Decoding, tiling and the float steps are
// x86/avx2/cq_i8.h's; activation quantization has no products, so the AVX2 one serves. Only ymm registers are
// used. Compiled only when the target enables AVX512VNNI and AVX512VL; kernels.h then selects these kernels.
#pragma once

#include "saguaro/kernels/x86/avx2/cq_i8.h"

#if defined(__AVX512VNNI__) && defined(__AVX512VL__)
#define SAGUARO_KERNELS_X86_AVX512VNNI 1

#include <immintrin.h>

#include <cstdint>

namespace saguaro::kernels::x86_avx512vnni {

namespace cq_i8_detail {

/// The VNNI product step: d += the sums of four adjacent products w·a (vpdpbusd, no saturation).
struct VnniOps {
  static inline __m256i dot(__m256i d, __m256i w, __m256i a) { return _mm256_dpbusd_epi32(d, w, a); }
};

}  // namespace cq_i8_detail

// cq_quantize_act_i8 (the AVX2 one: no products), cq_matmul_i8, cq_matmul2_i8, cq_matmul3_i8.
SAGUARO_KERNELS_DEFINE_CQ_I8(x86_avx2::cq_i8_detail::Kernels<cq_i8_detail::VnniOps>)

}  // namespace saguaro::kernels::x86_avx512vnni

#endif  // __AVX512VNNI__ && __AVX512VL__
