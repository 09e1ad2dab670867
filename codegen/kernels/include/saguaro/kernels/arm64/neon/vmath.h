// Vector exp and tanh for the NEON kernels: vec/vmath.h's polynomials on 4 lanes (FMA-evaluated).
#pragma once

#include <arm_neon.h>

#include "saguaro/kernels/arm64/neon/common.h"
#include "saguaro/kernels/vec/vmath.h"

namespace saguaro::kernels::arm64_neon::detail {

/// e^x per lane (vec::exp).
inline float32x4_t exp_ps(float32x4_t x) { return vec::exp<F32x4>(x); }

/// tanh(x) per lane (vec::tanh).
inline float32x4_t tanh_ps(float32x4_t x) { return vec::tanh<F32x4>(x); }

}  // namespace saguaro::kernels::arm64_neon::detail
