// Vector exp and tanh for the AVX2 kernels: vec/vmath.h's polynomials on 8 lanes (FMA-evaluated).
#pragma once

#include <immintrin.h>

#include "saguaro/kernels/vec/vmath.h"
#include "saguaro/kernels/x86/avx2/common.h"

namespace saguaro::kernels::x86_avx2::detail {

/// e^x per lane (vec::exp).
inline __m256 exp_ps(__m256 x) { return vec::exp<F32x8>(x); }

/// tanh(x) per lane (vec::tanh).
inline __m256 tanh_ps(__m256 x) { return vec::tanh<F32x8>(x); }

}  // namespace saguaro::kernels::x86_avx2::detail
