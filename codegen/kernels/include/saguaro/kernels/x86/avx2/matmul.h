// Dense matrix products with float32 or binary16 weights (AVX2+FMA, F16C): vec/matmul.h's kernels on 8-lane
// vectors; half weights are converted by F16C as they are loaded.
#pragma once

#include <cstdint>

#include "saguaro/kernels/dense_layout.h"
#include "saguaro/kernels/vec/matmul.h"
#include "saguaro/kernels/x86/avx2/common.h"

namespace saguaro::kernels::x86_avx2 {

namespace detail {

/// The tiles on AVX2's 16 vector registers: decode (one activation row) reads four weight rows per step (three:
/// one panel of dense::kPanel3, which kern-pack-weights chooses for x86 targets); otherwise 3 columns (prefill:
/// 4 rows × 3 columns, 12 accumulators).
struct DenseTiles : F32x8 {
  template <int R, int Layout>
  static constexpr int kColumns = R == 1 && Layout != dense::kPanel3 ? 4 : 3;
  static constexpr int64_t kThreadAlign = 12;
  static constexpr bool kPanels = true;
};

}  // namespace detail

// matmul_f32, matmul_f16, logits_f32, logits_f16.
SAGUARO_KERNELS_DEFINE_VEC_DENSE_MATMULS(detail::DenseTiles)

}  // namespace saguaro::kernels::x86_avx2
