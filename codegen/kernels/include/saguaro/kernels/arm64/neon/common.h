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

/// The float32 vector micro-ops the shared loops (vec/*.h) are written in, on 4 NEON lanes. Each is the single
/// instruction the NEON kernels use for it (fma: one rounding), so a shared loop performs their operations.
struct F32x4 {
  using V = float32x4_t;
  static constexpr int kLanes = 4;
  static V load(const float* p) { return vld1q_f32(p); }
  /// kLanes binary16 values as floats (exact; only a signalling NaN comes out quietened).
  static V load(const uint16_t* p) { return load4(p); }
  static void store(float* p, V v) { vst1q_f32(p, v); }
  /// p[0..n) (n in 0..4) in the first n lanes, zeros above; reads and writes nothing past p[n-1].
  static V load_first(const float* p, int n) { return detail::load_first(p, n); }
  static V load_first(const uint16_t* p, int n) { return detail::load_first(p, n); }
  static void store_first(float* p, V v, int n) { detail::store_first(p, v, n); }
  static V set1(float a) { return vdupq_n_f32(a); }
  static V zero() { return vdupq_n_f32(0.0f); }
  static V add(V a, V b) { return vaddq_f32(a, b); }
  static V sub(V a, V b) { return vsubq_f32(a, b); }
  static V mul(V a, V b) { return vmulq_f32(a, b); }
  static V div(V a, V b) { return vdivq_f32(a, b); }
  static V neg(V a) { return vnegq_f32(a); }
  /// a·b + c and c − a·b, each rounded once.
  static V fma(V a, V b, V c) { return vfmaq_f32(c, a, b); }
  static V fnma(V a, V b, V c) { return vfmsq_f32(c, a, b); }
  /// min(a, b) and max(a, b) return NaN when either is NaN.
  static V min(V a, V b) { return vminq_f32(a, b); }
  static V max(V a, V b) { return vmaxq_f32(a, b); }
  static V round_nearest(V a) { return vrndnq_f32(a); }
  static V round_down(V a) { return vrndmq_f32(a); }
  static V abs(V a) { return vabsq_f32(a); }
  /// |mag| (sign bit clear) with the sign of sgn.
  static V copy_sign(V mag, V sgn) { return vbslq_f32(vdupq_n_u32(0x80000000u), sgn, mag); }
  /// Lane masks of a < b and a > b, and mask ? a : b per lane.
  static uint32x4_t less(V a, V b) { return vcltq_f32(a, b); }
  static uint32x4_t greater(V a, V b) { return vcgtq_f32(a, b); }
  static V select(uint32x4_t mask, V a, V b) { return vbslq_f32(mask, a, b); }
  /// 2^n for integral n in [-126, 127], exactly: n + 127 shifted into the exponent field.
  static V pow2(V n) { return vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(vcvtq_s32_f32(n), vdupq_n_s32(127)), 23)); }
  /// No requests ahead: they are tuned on x86 and no ARM timing exists.
  static void prefetch_l1(const void*, int64_t) {}
  static void prefetch_l2(const void*, int64_t) {}
  static float hsum(V v) { return detail::hsum(v); }
  /// out[i] = the sum of the lanes of v[i] for i < n (hsums).
  template <int n>
  static void hsums(const V* v, float* out) { detail::hsums<n>(v, out); }
  /// 4 binary16 values to float, exactly as cq::half_to_float (half4_to_float).
  static V half_to_float(const uint16_t* h) { return half4_to_float(h); }
  /// RoPE's lane pairs (vec/rope.h): v·(c, c) + (v1, v0)·(−s, s) = (v0·c − v1·s, v1·c + v0·s); negating a product
  /// is exact and x + (−y) is x − y, so these are the generic kernel's roundings.
  static constexpr bool kNegateEvenSin = true;
  static V rotate_pairs(V a, V c, V s) { return vaddq_f32(vmulq_f32(a, c), vmulq_f32(vrev64q_f32(a), s)); }
};

}  // namespace saguaro::kernels::arm64_neon::detail
