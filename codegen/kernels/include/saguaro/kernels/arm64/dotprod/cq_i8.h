// Codebook-quantized (CQ) kernels on int8 activations (ARMv8.2 dotprod, FEAT_DotProd): the NEON kernels of
// arm64/neon/cq_i8.h with SDOT for the products. Contracts and numerics: generic/cq_i8.h; bit for bit equal to it.
//
// SDOT adds four w·q products into each int32 lane, exactly, so only the instruction sequence changes: decoding,
// tiling and the float steps are arm64/neon/cq_i8.h's. Activation quantization has no products: the NEON one serves.
// Compiled only when the target enables dotprod (-march=armv8.2-a+dotprod); kernels.h then selects these kernels.
#pragma once

#include "saguaro/kernels/arm64/neon/cq_i8.h"

#if defined(__ARM_FEATURE_DOTPROD)
#define SAGUARO_KERNELS_ARM64_DOTPROD 1

#include <arm_neon.h>

#include <cstdint>

namespace saguaro::kernels::arm64_dotprod {

namespace cq_i8_detail {

/// The dotprod operations: d += the products w·a of 16 signed bytes (SDOT); the NEON prefill block.
struct DotprodOps {
  static inline int32x4_t dot(int32x4_t d, int8x16_t w, int8x16_t a) { return vdotq_s32(d, w, a); }
  template <int K, int N, int Bits, int Layout>
  static inline void block(int32_t rows, const void* xq, const uint8_t* codes, const uint16_t* norms, int64_t n0,
                           int8x16_t lut, float scb, int8_t* w, float* y) {
    arm64_neon::cq_i8_detail::gemm_block<K, N, Bits, Layout, DotprodOps>(rows, xq, codes, norms, n0, lut, scb, w, y);
  }
};

}  // namespace cq_i8_detail

// cq_quantize_act_i8 (the NEON one: no products), cq_matmul_i8, cq_matmul2_i8, cq_matmul3_i8.
SAGUARO_KERNELS_DEFINE_CQ_I8(arm64_neon::cq_i8_detail::Kernels<cq_i8_detail::DotprodOps>)

}  // namespace saguaro::kernels::arm64_dotprod

#endif  // __ARM_FEATURE_DOTPROD
