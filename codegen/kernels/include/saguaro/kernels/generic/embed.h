// Token embedding lookup (generic).
#pragma once

#include <cstdint>

namespace saguaro::kernels::generic {

/// out[r] = table[tok[r]] * scale for r < rows; table is float32 [vocab][D].
template <int D>
inline void embed_f32(int32_t rows, const int32_t* tok, const void* table, float scale, float* out) {
  const float* t = static_cast<const float*>(table);
  for (int32_t r = 0; r < rows; ++r) {
    const float* src = t + static_cast<int64_t>(tok[r]) * D;
    float* dst = out + static_cast<int64_t>(r) * D;
    // x * 1.0f is exact, so scale 1 is a plain copy without a branch.
    for (int i = 0; i < D; ++i) dst[i] = src[i] * scale;
  }
}

}  // namespace saguaro::kernels::generic
