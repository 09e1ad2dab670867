// Rotary position embedding over a float32 vector micro-op set F (x86_avx2::detail::F32x8,
// arm64_neon::detail::F32x4). The angles are the generic kernel's (generic::rope_angles: the same powf, cosf and
// sinf, made once per position and parameters on each thread) and the rotation is the same multiplies and adds per
// element (no FMA), so the result is identical to generic::rope_f32 (and to llama2.c for Style 0). Head-dim tails
// go through the same vector code on their first lanes rather than scalar code: GCC 12 SLP-vectorizes a scalar pair
// update into mul+addsub and fuses that into vfmaddsub even under -ffp-contract=off, which changes the last bit.
#pragma once

#include <cstdint>

#include "saguaro/kernels/generic/rope.h"

/// Defines rope_f32 (generic/rope.h's contract) in the enclosing ISA namespace over vec::rope_f32 with the
/// micro-ops F.
#define SAGUARO_KERNELS_DEFINE_ROPE(F)                                                                               \
  template <int H, int HD, int Style, int Rotary = HD / 2>                                                           \
  inline void rope_f32(int32_t rows, int32_t pos0, float* x, float theta, float pos_scale,                           \
                       float llama3_factor = 0.0f, float low_freq_factor = 1.0f, float high_freq_factor = 4.0f,      \
                       float original_context = 8192.0f) {                                                           \
    vec::rope_f32<F, H, HD, Style, Rotary>(rows, pos0, x, theta, pos_scale, llama3_factor, low_freq_factor,          \
                                           high_freq_factor, original_context);                                      \
  }

namespace saguaro::kernels::vec {

/// Whole vectors: plain loads and stores. On x86 only the head-dim tail takes the masked ones (First): a masked
/// store is microcoded on AMD Zen (all-masked rope_f32 took ~3.7 thousand cycles for Qwen3-0.6B's 16 query heads).
template <class F>
struct Whole {
  typename F::V load(const float* p) const { return F::load(p); }
  void store(float* p, typename F::V v) const { F::store(p, v); }
};

/// The first n lanes (the head-dim tail).
template <class F>
struct First {
  int n;
  typename F::V load(const float* p) const { return F::load_first(p, n); }
  void store(float* p, typename F::V v) const { F::store_first(p, v, n); }
};

/// In-place RoPE on x[rows][H][HD]; row r sits at position (pos0+r)/pos_scale (contract of generic::rope_f32).
/// Style 0 rotates lane pairs with F::rotate_pairs(v, (c, c), (s', s)) = (v0·c − v1·s, v1·c + v0·s), where s' is
/// −s when F::kNegateEvenSin (the pair product is then added) and s otherwise (subtracted by the ISA).
template <class F, int H, int HD, int Style, int Rotary>
inline void rope_f32(int32_t rows, int32_t pos0, float* x, float theta, float pos_scale, float llama3_factor,
                     float low_freq_factor, float high_freq_factor, float original_context) {
  static_assert(HD % 2 == 0, "head dim must be even");
  static_assert(Style == 0 || Style == 1, "rope style is 0 (interleaved) or 1 (halves)");
  using V = typename F::V;
  constexpr int L = F::kLanes;
  constexpr int kHalf = HD / 2;
  // Style 0: cos repeated for both elements of a pair, sin as (s', s); Style 1: one entry per pair.
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
        fci[2 * i] = F::kNegateEvenSin ? -a.sin[i] : a.sin[i];
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
        const auto pairs = [&](auto io, int i) {
          io.store(v + i, F::rotate_pairs(io.load(v + i), io.load(fcr + i), io.load(fci + i)));
        };
        int i = 0;
        for (; i + L <= 2 * Rotary; i += L) pairs(Whole<F>{}, i);
        if (i < 2 * Rotary) pairs(First<F>{2 * Rotary - i}, i);
      } else {
        // (v0·c − v1·s, v0·s + v1·c) for elements i and i + HD/2.
        const auto halves = [&](auto io, int i) {
          const V c = io.load(fcr + i);
          const V s = io.load(fci + i);
          const V v0 = io.load(v + i);
          const V v1 = io.load(v + kHalf + i);
          io.store(v + i, F::sub(F::mul(v0, c), F::mul(v1, s)));
          io.store(v + kHalf + i, F::add(F::mul(v0, s), F::mul(v1, c)));
        };
        int i = 0;
        for (; i + L <= Rotary; i += L) halves(Whole<F>{}, i);
        if (i < Rotary) halves(First<F>{Rotary - i}, i);
      }
    }
  }
}

}  // namespace saguaro::kernels::vec
