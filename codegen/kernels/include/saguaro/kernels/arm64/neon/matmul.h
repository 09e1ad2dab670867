// Dense matrix products with float32 or binary16 weights (NEON): vec/matmul.h's kernels on 4-lane vectors; half
// weights are converted by FCVTL as they are loaded.
#pragma once

#include <cstdint>

#include "saguaro/kernels/arm64/neon/common.h"
#include "saguaro/kernels/vec/matmul.h"

namespace saguaro::kernels::arm64_neon {

namespace detail {

/// The tiles on NEON's 32 vector registers: decode (one activation row) reads eight weight rows per step, eight
/// independent FMA chains that hide the FMA latency; otherwise 4 columns (prefill: 4 rows × 4 columns, 16
/// accumulators). Weights are row-major (kern-pack-weights packs dense weights for x86 targets only).
struct DenseTiles : F32x4 {
  template <int R, int Layout>
  static constexpr int kColumns = R == 1 ? 8 : 4;
  static constexpr int64_t kThreadAlign = 8;
  static constexpr bool kPanels = false;
};

}  // namespace detail

// matmul_f32, matmul_f16, logits_f32, logits_f16.
SAGUARO_KERNELS_DEFINE_VEC_DENSE_MATMULS(detail::DenseTiles)

}  // namespace saguaro::kernels::arm64_neon
