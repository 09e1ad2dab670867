// Rotary position embedding (AVX2). The angles are the generic kernel's (powf once per call instead of once
// per row, cosf/sinf per row) and the rotation is the same multiplies and adds per element, so the result is
// identical to generic::rope_f32 (and to llama2.c for Style 0). Head-dim tails use masked vectors rather than
// scalar code: GCC 12 SLP-vectorizes the scalar pair update into mul+addsub and fuses that into vfmaddsub even
// under -ffp-contract=off, which changes the last bit.
#pragma once

#include <immintrin.h>

#include <cmath>
#include <cstdint>

#include "saguaro/kernels/generic/rope.h"
#include "saguaro/kernels/x86/avx2/common.h"

namespace saguaro::kernels::x86_avx2 {

/// In-place RoPE on x[rows][H][HD]; row r sits at position (pos0+r)/pos_scale (contract of generic::rope_f32).
template <int H, int HD, int Style>
inline void rope_f32(int32_t rows, int32_t pos0, float* x, float theta, float pos_scale, float llama3_factor = 0.0f,
                     float low_freq_factor = 1.0f, float high_freq_factor = 4.0f, float original_context = 8192.0f) {
  static_assert(HD % 2 == 0, "head dim must be even");
  static_assert(Style == 0 || Style == 1, "rope style is 0 (interleaved) or 1 (halves)");
  constexpr int kHalf = HD / 2;
  float freq[kHalf];
  for (int i = 0; i < kHalf; ++i)
    freq[i] = generic::rope_inv_freq(i, HD, theta, llama3_factor, low_freq_factor, high_freq_factor, original_context);
  // Style 0: cos/sin repeated for both elements of a pair; Style 1: one entry per pair.
  float fcr[HD];
  float fci[HD];
  for (int32_t r = 0; r < rows; ++r) {
    // Dividing by 1.0f is exact, so unscaled positions match llama2.c's int-to-float conversion.
    const float pos = static_cast<float>(pos0 + r) / pos_scale;
    for (int i = 0; i < kHalf; ++i) {
      const float val = pos * freq[i];
      const float c = cosf(val);
      const float s = sinf(val);
      if (Style == 0) {
        fcr[2 * i] = fcr[2 * i + 1] = c;
        fci[2 * i] = fci[2 * i + 1] = s;
      } else {
        fcr[i] = c;
        fci[i] = s;
      }
    }
    float* xr = x + static_cast<int64_t>(r) * H * HD;
    for (int h = 0; h < H; ++h) {
      float* v = xr + h * HD;
      if constexpr (Style == 0) {
        // Lane pairs (v0, v1): p = (v0·c, v1·c), q = (v1·s, v0·s); addsub gives (v0·c − v1·s, v1·c + v0·s).
        for (int i = 0; i < HD; i += 8) {
          const __m256i m = detail::first_lanes(HD - i);
          const __m256 a = _mm256_maskload_ps(v + i, m);
          const __m256 p = _mm256_mul_ps(a, _mm256_maskload_ps(fcr + i, m));
          const __m256 q = _mm256_mul_ps(_mm256_permute_ps(a, 0xB1), _mm256_maskload_ps(fci + i, m));
          _mm256_maskstore_ps(v + i, m, _mm256_addsub_ps(p, q));
        }
      } else {
        for (int i = 0; i < kHalf; i += 8) {
          const __m256i m = detail::first_lanes(kHalf - i);
          const __m256 c = _mm256_maskload_ps(fcr + i, m);
          const __m256 s = _mm256_maskload_ps(fci + i, m);
          const __m256 v0 = _mm256_maskload_ps(v + i, m);
          const __m256 v1 = _mm256_maskload_ps(v + kHalf + i, m);
          _mm256_maskstore_ps(v + i, m, _mm256_sub_ps(_mm256_mul_ps(v0, c), _mm256_mul_ps(v1, s)));
          _mm256_maskstore_ps(v + kHalf + i, m, _mm256_add_ps(_mm256_mul_ps(v0, s), _mm256_mul_ps(v1, c)));
        }
      }
    }
  }
}

}  // namespace saguaro::kernels::x86_avx2
