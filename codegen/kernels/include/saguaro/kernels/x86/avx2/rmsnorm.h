// RMSNorm variants (AVX2+FMA): vec/rmsnorm.h's one-vector norm on 8 lanes in the shared row loops.
#pragma once

#include "saguaro/kernels/x86/avx2/common.h"
#include "saguaro/kernels/vec/rmsnorm.h"

namespace saguaro::kernels::x86_avx2 {

// rmsnorm_f32, add_rmsnorm_f32, head_rmsnorm_f32.
SAGUARO_KERNELS_DEFINE_RMSNORMS(vec::RmsnormOps<detail::F32x8>)

}  // namespace saguaro::kernels::x86_avx2
