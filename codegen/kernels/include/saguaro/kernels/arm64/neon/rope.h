// Rotary position embedding (NEON). The angles are the generic kernel's (generic::rope_angles: the same powf, cosf and
// sinf, made once per position and parameters on each thread) and the rotation is the same multiplies and adds per
// element (no FMA), so the result is identical to generic::rope_f32 (and to llama2.c for Style 0). Worthwhile because
// it runs over every query and key head at every position; head-dim tails go through the vector code on a zero-padded
// copy.
#pragma once

#include <arm_neon.h>

#include <cmath>
#include <cstdint>

#include "saguaro/kernels/generic/rope.h"
#include "saguaro/kernels/arm64/neon/common.h"

namespace saguaro::kernels::arm64_neon {

/// In-place RoPE on x[rows][H][HD]; row r sits at position (pos0+r)/pos_scale (contract of generic::rope_f32).
template <int H, int HD, int Style, int Rotary = HD / 2>
inline void rope_f32(int32_t rows, int32_t pos0, float* x, float theta, float pos_scale, float llama3_factor = 0.0f,
                     float low_freq_factor = 1.0f, float high_freq_factor = 4.0f, float original_context = 8192.0f) {
  static_assert(HD % 2 == 0, "head dim must be even");
  static_assert(Style == 0 || Style == 1, "rope style is 0 (interleaved) or 1 (halves)");
  constexpr int kHalf = HD / 2;
  // Style 0: cos repeated for both elements of a pair and sin as (−s, s); Style 1: one entry per pair.
  float fcr[HD];
  float fci[HD];
  for (int32_t r = 0; r < rows; ++r) {
    // Dividing by 1.0f is exact, so unscaled positions match llama2.c's int-to-float conversion.
    const float pos = static_cast<float>(pos0 + r) / pos_scale;
    const auto& a =
        generic::rope_angles<HD>(pos, theta, llama3_factor, low_freq_factor, high_freq_factor, original_context);
    for (int i = 0; i < kHalf; ++i) {
      if (Style == 0) {
        fcr[2 * i] = fcr[2 * i + 1] = a.cos[i];
        fci[2 * i] = -a.sin[i];
        fci[2 * i + 1] = a.sin[i];
      } else {
        fcr[i] = a.cos[i];
        fci[i] = a.sin[i];
      }
    }
    float* xr = x + static_cast<int64_t>(r) * H * HD;
    for (int h = 0; h < H; ++h) {
      float* v = xr + h * HD;
      if constexpr (Style == 0) {
        // Pairs (v0, v1): v·(c, c) + (v1, v0)·(−s, s) = (v0·c − v1·s, v1·c + v0·s); negating a product is exact
        // and x + (−y) is x − y, so these are the generic kernel's roundings.
        auto rotate = [](float32x4_t a, float32x4_t c, float32x4_t s) {
          return vaddq_f32(vmulq_f32(a, c), vmulq_f32(vrev64q_f32(a), s));
        };
        int i = 0;
        for (; i + 4 <= 2 * Rotary; i += 4)
          vst1q_f32(v + i, rotate(vld1q_f32(v + i), vld1q_f32(fcr + i), vld1q_f32(fci + i)));
        if (i < 2 * Rotary) {
          const int n = 2 * Rotary - i;
          const float32x4_t a = rotate(detail::load_first(v + i, n), detail::load_first(fcr + i, n),
                                       detail::load_first(fci + i, n));
          detail::store_first(v + i, a, n);
        }
      } else {
        // (v0·c − v1·s, v0·s + v1·c) for elements i and i + HD/2.
        auto rotate = [&](int i, float32x4_t v0, float32x4_t v1, float32x4_t c, float32x4_t s, int n) {
          detail::store_first(v + i, vsubq_f32(vmulq_f32(v0, c), vmulq_f32(v1, s)), n);
          detail::store_first(v + kHalf + i, vaddq_f32(vmulq_f32(v0, s), vmulq_f32(v1, c)), n);
        };
        int i = 0;
        for (; i + 4 <= Rotary; i += 4)
          rotate(i, vld1q_f32(v + i), vld1q_f32(v + kHalf + i), vld1q_f32(fcr + i), vld1q_f32(fci + i), 4);
        if (i < Rotary) {
          const int n = Rotary - i;
          rotate(i, detail::load_first(v + i, n), detail::load_first(v + kHalf + i, n), detail::load_first(fcr + i, n),
                 detail::load_first(fci + i, n), n);
        }
      }
    }
  }
}

}  // namespace saguaro::kernels::arm64_neon
