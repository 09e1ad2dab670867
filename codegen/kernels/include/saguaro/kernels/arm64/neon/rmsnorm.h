// RMSNorm variants (NEON): vec/rmsnorm.h's one-vector norm on 4 lanes in the shared row loops.
#pragma once

#include "saguaro/kernels/arm64/neon/common.h"
#include "saguaro/kernels/vec/rmsnorm.h"

namespace saguaro::kernels::arm64_neon {

// rmsnorm_f32, add_rmsnorm_f32, head_rmsnorm_f32.
SAGUARO_KERNELS_DEFINE_RMSNORMS(vec::RmsnormOps<detail::F32x4>)

}  // namespace saguaro::kernels::arm64_neon
