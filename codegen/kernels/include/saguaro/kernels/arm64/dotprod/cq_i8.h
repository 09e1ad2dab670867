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

using arm64_neon::cq_quantize_act_i8;

/// y = the integer codebook matmul of quantized activations (contract of generic::cq_matmul_i8, same result).
template <int K, int N, int Bits, int Layout>
inline void cq_matmul_i8(int32_t rows, const void* xq, const void* codes, const void* norms, const void* codebook,
                         float* y, const Parallel* par = nullptr) {
  arm64_neon::cq_i8_detail::matmul_or_generic<K, N, Bits, Layout, cq_i8_detail::DotprodOps>(rows, xq, codes, norms,
                                                                                          codebook, y, par);
}

/// Two products of one activation (contract of generic::cq_matmul2_i8, same results), in one parallel region.
template <int K, int N0, int N1, int Bits, int Layout>
inline void cq_matmul2_i8(int32_t rows, const void* xq, const void* codebook, const void* codes0, const void* norms0,
                          float* y0, const void* codes1, const void* norms1, float* y1, const Parallel* par = nullptr) {
  fused::matmul2<arm64_neon::cq_i8_detail::FusedIsa<cq_i8_detail::DotprodOps>, K, N0, N1, Bits, Layout>(
      rows, xq, codebook, codes0, norms0, y0, codes1, norms1, y1, par);
}

/// Three products of one activation (contract of generic::cq_matmul3_i8, same results), in one parallel region.
template <int K, int N0, int N1, int N2, int Bits, int Layout>
inline void cq_matmul3_i8(int32_t rows, const void* xq, const void* codebook, const void* codes0, const void* norms0,
                          float* y0, const void* codes1, const void* norms1, float* y1, const void* codes2,
                          const void* norms2, float* y2, const Parallel* par = nullptr) {
  fused::matmul3<arm64_neon::cq_i8_detail::FusedIsa<cq_i8_detail::DotprodOps>, K, N0, N1, N2, Bits, Layout>(
      rows, xq, codebook, codes0, norms0, y0, codes1, norms1, y1, codes2, norms2, y2, par);
}

}  // namespace saguaro::kernels::arm64_dotprod

#endif  // __ARM_FEATURE_DOTPROD
