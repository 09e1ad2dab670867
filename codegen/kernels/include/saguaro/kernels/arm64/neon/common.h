// Shared NEON helpers: float32/binary16 loads, partial loads and stores, horizontal sums in one fixed order, exact
// half-to-float.
//
// Every reduction below adds the 4 lanes of an accumulator as (l0+l1)+(l2+l3) (FADDP twice), whether it reduces
// one or four accumulators at once, so a kernel's result for one output does not depend on how many outputs it
// computed together.
#pragma once

#include <arm_neon.h>

#include <cstdint>

namespace saguaro::kernels::arm64_neon::detail {

/// All-ones in the first n (any int; <= 0 none, >= 4 all) 32-bit lanes.
inline uint32x4_t first_lanes(int n) {
  const uint32_t lanes[4] = {0, 1, 2, 3};
  return vcltq_s32(vreinterpretq_s32_u32(vld1q_u32(lanes)), vdupq_n_s32(n));
}

/// Four elements at p as floats: float32, or binary16 bits converted by FCVTL (ARMv8.0; exact, only a signalling
/// NaN comes out quietened).
inline float32x4_t load4(const float* p) { return vld1q_f32(p); }
inline float32x4_t load4(const uint16_t* p) { return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(p))); }

/// p[0..n) in the first n (0..4) lanes, zeros above; reads nothing past p[n-1].
inline float32x4_t load_first(const float* p, int n) {
  float b[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int i = 0; i < n; ++i) b[i] = p[i];
  return vld1q_f32(b);
}

/// p[0..n) (n in 0..4) of binary16 bits in the first n lanes as floats, zeros above; reads nothing past p[n-1].
inline float32x4_t load_first(const uint16_t* p, int n) {
  uint16_t b[4] = {0, 0, 0, 0};
  for (int i = 0; i < n; ++i) b[i] = p[i];
  return load4(b);
}

/// Stores the first n (0..4) lanes of v to p[0..n).
inline void store_first(float* p, float32x4_t v, int n) {
  float b[4];
  vst1q_f32(b, v);
  for (int i = 0; i < n; ++i) p[i] = b[i];
}

/// The sum of the 4 lanes of v: (l0+l1)+(l2+l3).
inline float hsum(float32x4_t v) {
  const float32x4_t p = vpaddq_f32(v, v);
  return vgetq_lane_f32(vpaddq_f32(p, p), 0);
}

/// Lane i = sum of the lanes of a_i, for four accumulators (same order as hsum).
inline float32x4_t hsum4(float32x4_t a0, float32x4_t a1, float32x4_t a2, float32x4_t a3) {
  return vpaddq_f32(vpaddq_f32(a0, a1), vpaddq_f32(a2, a3));
}

/// out[i] = sum of the lanes of v[i] for i < n, four accumulators at a time where possible.
template <int n>
inline void hsums(const float32x4_t* v, float* out) {
  int i = 0;
  for (; i + 4 <= n; i += 4) vst1q_f32(out + i, hsum4(v[i], v[i + 1], v[i + 2], v[i + 3]));
  for (; i < n; ++i) out[i] = hsum(v[i]);
}

/// 4 IEEE binary16 values to float, exactly as cq::half_to_float (normals and inf/NaN by bit manipulation, so
/// NaN payloads are kept where FCVTL would quieten them; subnormals as mantissa·2^-24).
inline float32x4_t half4_to_float(const uint16_t* h) {
  const uint32x4_t v = vmovl_u16(vld1_u16(h));
  const uint32x4_t sign = vshlq_n_u32(vandq_u32(v, vdupq_n_u32(0x8000)), 16);
  const uint32x4_t mag = vandq_u32(v, vdupq_n_u32(0x7FFF));
  const uint32x4_t shifted = vshlq_n_u32(mag, 13);
  const uint32x4_t normal = vaddq_u32(shifted, vdupq_n_u32(112u << 23));
  const uint32x4_t special = vorrq_u32(shifted, vdupq_n_u32(0x7F800000u));
  const float32x4_t sub = vmulq_f32(vcvtq_f32_u32(mag), vdupq_n_f32(5.9604644775390625e-8f));
  uint32x4_t f = vbslq_u32(vcgtq_u32(mag, vdupq_n_u32(0x7BFF)), special, normal);
  f = vbslq_u32(vcltq_u32(mag, vdupq_n_u32(0x0400)), vreinterpretq_u32_f32(sub), f);
  return vreinterpretq_f32_u32(vorrq_u32(f, sign));
}

}  // namespace saguaro::kernels::arm64_neon::detail
