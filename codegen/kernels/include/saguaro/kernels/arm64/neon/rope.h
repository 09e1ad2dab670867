// Rotary position embedding (NEON): vec/rope.h on 4 lanes, identical to generic::rope_f32.
#pragma once

#include "saguaro/kernels/arm64/neon/common.h"
#include "saguaro/kernels/vec/rope.h"

namespace saguaro::kernels::arm64_neon {

SAGUARO_KERNELS_DEFINE_ROPE(detail::F32x4)

}  // namespace saguaro::kernels::arm64_neon
