// Rotary position embedding (generic).
#pragma once

#include <cmath>
#include <cstdint>

namespace saguaro::kernels::generic {

/// In-place RoPE on x[rows][H][HD]; row r sits at position (pos0+r)/pos_scale.
/// Style 0: interleaved pairs (2i, 2i+1) as llama2.c; Style 1: halves (i, i+HD/2) as HF rotate_half.
/// Both use freq_i = 1/powf(theta, (float)(2i)/HD), val = pos*freq, then cosf/sinf (llama2.c order).
template <int H, int HD, int Style>
inline void rope_f32(int32_t rows, int32_t pos0, float* x, float theta, float pos_scale) {
  static_assert(HD % 2 == 0, "head dim must be even");
  static_assert(Style == 0 || Style == 1, "rope style is 0 (interleaved) or 1 (halves)");
  constexpr int kHalf = HD / 2;
  for (int32_t r = 0; r < rows; ++r) {
    // Dividing by 1.0f is exact, so unscaled positions match llama2.c's int-to-float conversion.
    const float pos = static_cast<float>(pos0 + r) / pos_scale;
    float* xr = x + static_cast<int64_t>(r) * H * HD;
    for (int i = 0; i < kHalf; ++i) {
      const float freq = 1.0f / powf(theta, static_cast<float>(2 * i) / static_cast<float>(HD));
      const float val = pos * freq;
      const float fcr = cosf(val);
      const float fci = sinf(val);
      const int i0 = Style == 0 ? 2 * i : i;
      const int i1 = Style == 0 ? 2 * i + 1 : i + kHalf;
      for (int h = 0; h < H; ++h) {
        float* v = xr + h * HD;
        const float v0 = v[i0];
        const float v1 = v[i1];
        v[i0] = v0 * fcr - v1 * fci;
        v[i1] = v0 * fci + v1 * fcr;
      }
    }
  }
}

}  // namespace saguaro::kernels::generic
