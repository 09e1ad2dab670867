// Rotary position embedding (AVX2). The angles are the generic kernel's (generic::rope_angles: the same powf, cosf and
// sinf, made once per position and parameters on each thread) and the rotation is the same multiplies and adds per
// element, so the result is identical to generic::rope_f32 (and to llama2.c for Style 0). Head-dim tails use masked
// vectors rather than scalar code: GCC 12 SLP-vectorizes the scalar pair update into mul+addsub and fuses that into
// vfmaddsub even under -ffp-contract=off, which changes the last bit.
#pragma once

#include <immintrin.h>

#include <cmath>
#include <cstdint>

#include "saguaro/kernels/generic/rope.h"
#include "saguaro/kernels/x86/avx2/common.h"

namespace saguaro::kernels::x86_avx2 {

namespace rope_detail {

/// Eight lanes at a time: plain loads and stores for whole vectors, masked ones for the head-dim tail only (a masked
/// store is microcoded on AMD Zen: all-masked rope_f32 took ~3.7 thousand cycles for Qwen3-0.6B's 16 query heads).
struct Full {
  __m256 load(const float* p) const { return _mm256_loadu_ps(p); }
  void store(float* p, __m256 v) const { _mm256_storeu_ps(p, v); }
};
struct Masked {
  __m256i m;
  __m256 load(const float* p) const { return _mm256_maskload_ps(p, m); }
  void store(float* p, __m256 v) const { _mm256_maskstore_ps(p, m, v); }
};

}  // namespace rope_detail

/// In-place RoPE on x[rows][H][HD]; row r sits at position (pos0+r)/pos_scale (contract of generic::rope_f32).
template <int H, int HD, int Style, int Rotary = HD / 2>
inline void rope_f32(int32_t rows, int32_t pos0, float* x, float theta, float pos_scale, float llama3_factor = 0.0f,
                     float low_freq_factor = 1.0f, float high_freq_factor = 4.0f, float original_context = 8192.0f) {
  static_assert(HD % 2 == 0, "head dim must be even");
  static_assert(Style == 0 || Style == 1, "rope style is 0 (interleaved) or 1 (halves)");
  constexpr int kHalf = HD / 2;
  // Style 0: cos/sin repeated for both elements of a pair; Style 1: one entry per pair.
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
        fci[2 * i] = fci[2 * i + 1] = a.sin[i];
      } else {
        fcr[i] = a.cos[i];
        fci[i] = a.sin[i];
      }
    }
    float* xr = x + static_cast<int64_t>(r) * H * HD;
    for (int h = 0; h < H; ++h) {
      float* v = xr + h * HD;
      if constexpr (Style == 0) {
        // Lane pairs (v0, v1): p = (v0·c, v1·c), q = (v1·s, v0·s); addsub gives (v0·c − v1·s, v1·c + v0·s).
        const auto pairs = [&](auto io, int i) {
          const __m256 a = io.load(v + i);
          const __m256 p = _mm256_mul_ps(a, io.load(fcr + i));
          const __m256 q = _mm256_mul_ps(_mm256_permute_ps(a, 0xB1), io.load(fci + i));
          io.store(v + i, _mm256_addsub_ps(p, q));
        };
        int i = 0;
        for (; i + 8 <= 2 * Rotary; i += 8) pairs(rope_detail::Full{}, i);
        if (i < 2 * Rotary) pairs(rope_detail::Masked{detail::first_lanes(2 * Rotary - i)}, i);
      } else {
        const auto halves = [&](auto io, int i) {
          const __m256 c = io.load(fcr + i);
          const __m256 s = io.load(fci + i);
          const __m256 v0 = io.load(v + i);
          const __m256 v1 = io.load(v + kHalf + i);
          io.store(v + i, _mm256_sub_ps(_mm256_mul_ps(v0, c), _mm256_mul_ps(v1, s)));
          io.store(v + kHalf + i, _mm256_add_ps(_mm256_mul_ps(v0, s), _mm256_mul_ps(v1, c)));
        };
        int i = 0;
        for (; i + 8 <= Rotary; i += 8) halves(rope_detail::Full{}, i);
        if (i < Rotary) halves(rope_detail::Masked{detail::first_lanes(Rotary - i)}, i);
      }
    }
  }
}

}  // namespace saguaro::kernels::x86_avx2
