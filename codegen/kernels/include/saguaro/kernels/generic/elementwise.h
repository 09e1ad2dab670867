// Elementwise kernels (generic).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace saguaro::kernels::generic {

/// acc[rows][D] += x[rows][D].
template <int D>
inline void add_f32(int32_t rows, float* acc, const float* x) {
  const int64_t n = static_cast<int64_t>(rows) * D;
  for (int64_t i = 0; i < n; ++i) acc[i] += x[i];
}

/// x[rows][N] = cap·tanhf(x/cap), in place (Gemma logit soft-capping).
template <int N>
inline void softcap_f32(int32_t rows, float* x, float cap) {
  const int64_t n = static_cast<int64_t>(rows) * N;
  for (int64_t i = 0; i < n; ++i) x[i] = cap * tanhf(x[i] / cap);
}

/// x[rows][N] *= factor, in place; with a one-element weight w, *= factor·w[0] (factor 1: exactly w[0]).
template <int N>
inline void scale_f32(int32_t rows, float* x, float factor, const void* w = nullptr) {
  const float s = w ? factor * *static_cast<const float*>(w) : factor;
  const int64_t n = static_cast<int64_t>(rows) * N;
  for (int64_t i = 0; i < n; ++i) x[i] *= s;
}

/// out[rows][W] = the columns [Offset, Offset + W) of x[rows][N].
template <int N, int Offset, int W>
inline void column_slice_f32(int32_t rows, const float* x, float* out) {
  static_assert(Offset >= 0 && W > 0 && Offset + W <= N, "the columns lie inside the row");
  for (int32_t r = 0; r < rows; ++r)
    std::memcpy(out + static_cast<int64_t>(r) * W, x + static_cast<int64_t>(r) * N + Offset, sizeof(float) * W);
}

/// out[rows][N] = x[rows][N]: an entry's input into its arena, or its result out of it.
template <int N>
inline void copy_rows_f32(int32_t rows, const float* x, float* out) {
  std::memcpy(out, x, sizeof(float) * static_cast<size_t>(rows) * N);
}

/// Row r of x[rows][D] becomes embeds[r] where mask[r] is non-zero; nothing when embeds is null (the rows an
/// encoder's soft tokens replace in a prefill chunk).
template <int D>
inline void inject_rows_f32(int32_t rows, const float* embeds, const uint8_t* mask, float* x) {
  if (!embeds) return;
  for (int32_t r = 0; r < rows; ++r)
    if (mask[r])
      std::memcpy(x + static_cast<int64_t>(r) * D, embeds + static_cast<int64_t>(r) * D, sizeof(float) * D);
}

/// x[rows][N] = min(max(x, *lo), *hi), in place: torch.clamp with the one-float bounds lo and hi (a clipped linear's
/// stored input or output range; ±inf leaves that side open). A NaN x stays NaN, as in torch; lo > hi gives hi.
template <int N>
inline void clamp_f32(int32_t rows, float* x, const void* lo, const void* hi) {
  const float a = *static_cast<const float*>(lo), b = *static_cast<const float*>(hi);
  const int64_t n = static_cast<int64_t>(rows) * N;
  for (int64_t i = 0; i < n; ++i) {
    const float m = x[i] < a ? a : x[i];  // a comparison with NaN is false: NaN passes both steps
    x[i] = m > b ? b : m;
  }
}

/// x[rows][N] = (x - shift)·scale, in place (Gemma 4's patch embedder maps [0, 1] pixels to [-1, 1] as
/// 2·(x - 0.5): the subtraction first, then the product).
template <int N>
inline void shift_scale_f32(int32_t rows, float* x, float shift, float scale) {
  const int64_t n = static_cast<int64_t>(rows) * N;
  for (int64_t i = 0; i < n; ++i) x[i] = (x[i] - shift) * scale;
}

/// x[r][c] = (x[r][c] - bias[c])·scale[c], in place, with float32 weights bias[N] and scale[N] (Gemma 4's vision
/// standardize: (h - std_bias)·std_scale).
template <int N>
inline void standardize_f32(int32_t rows, float* x, const void* bias, const void* scale) {
  const float* b = static_cast<const float*>(bias);
  const float* s = static_cast<const float*>(scale);
  for (int32_t r = 0; r < rows; ++r) {
    float* xr = x + static_cast<int64_t>(r) * N;
    for (int c = 0; c < N; ++c) xr[c] = (xr[c] - b[c]) * s[c];
  }
}

}  // namespace saguaro::kernels::generic
