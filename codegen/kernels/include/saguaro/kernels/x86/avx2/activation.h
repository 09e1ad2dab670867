// Gated MLP activations (AVX2+FMA): vec/activation.h on 8 lanes.
#pragma once

#include "saguaro/kernels/x86/avx2/common.h"
#include "saguaro/kernels/vec/activation.h"

namespace saguaro::kernels::x86_avx2 {

SAGUARO_KERNELS_DEFINE_GATED_ACT(detail::F32x8)

}  // namespace saguaro::kernels::x86_avx2
