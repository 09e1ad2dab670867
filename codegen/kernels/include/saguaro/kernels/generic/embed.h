// Token embedding lookup (generic), from a float32 or binary16 table.
#pragma once

#include <cstdint>

#include "saguaro/kernels/generic/element.h"

namespace saguaro::kernels::generic {

namespace embed_detail {

/// out[r] = table[tok[r]] * scale for r < rows; table [vocab][D] of element type T (element.h).
template <int D, class T>
inline void embed(int32_t rows, const int32_t* tok, const T* table, float scale, float* out) {
  for (int32_t r = 0; r < rows; ++r) {
    const T* src = table + static_cast<int64_t>(tok[r]) * D;
    float* dst = out + static_cast<int64_t>(r) * D;
    // x * 1.0f is exact, so scale 1 is a plain copy (of the converted halves) without a branch.
    for (int i = 0; i < D; ++i) dst[i] = load_float(src + i) * scale;
  }
}

}  // namespace embed_detail

/// out[r] = table[tok[r]] * scale for r < rows; table is float32 [vocab][D].
template <int D>
inline void embed_f32(int32_t rows, const int32_t* tok, const void* table, float scale, float* out) {
  embed_detail::embed<D>(rows, tok, static_cast<const float*>(table), scale, out);
}

/// out[r] = table[tok[r]] * scale for r < rows; table is IEEE binary16 bits uint16 [vocab][D], read exactly.
template <int D>
inline void embed_f16(int32_t rows, const int32_t* tok, const void* table, float scale, float* out) {
  embed_detail::embed<D>(rows, tok, static_cast<const uint16_t*>(table), scale, out);
}

}  // namespace saguaro::kernels::generic
