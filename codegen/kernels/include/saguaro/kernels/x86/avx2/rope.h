// Rotary position embedding (AVX2): vec/rope.h on 8 lanes, identical to generic::rope_f32.
#pragma once

#include "saguaro/kernels/x86/avx2/common.h"
#include "saguaro/kernels/vec/rope.h"

namespace saguaro::kernels::x86_avx2 {

SAGUARO_KERNELS_DEFINE_ROPE(detail::F32x8)

}  // namespace saguaro::kernels::x86_avx2
