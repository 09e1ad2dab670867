// Element types of the float data kernels read (generic): float32, or IEEE binary16 bits in a uint16_t (f16
// weights, the f16 KV cache). A kernel templated on the element type reads it through load_float, exactly, and
// computes in float32 either way.
#pragma once

#include <cstdint>

#include "saguaro/kernels/cq_format.h"

namespace saguaro::kernels::generic {

inline float load_float(const float* p) { return *p; }
inline float load_float(const uint16_t* p) { return cq::half_to_float(*p); }

}  // namespace saguaro::kernels::generic
