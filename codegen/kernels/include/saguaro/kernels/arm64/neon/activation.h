// Gated MLP activations (NEON): vec/activation.h on 4 lanes.
#pragma once

#include "saguaro/kernels/arm64/neon/common.h"
#include "saguaro/kernels/vec/activation.h"

namespace saguaro::kernels::arm64_neon {

SAGUARO_KERNELS_DEFINE_GATED_ACT(detail::F32x4)

}  // namespace saguaro::kernels::arm64_neon
