// Causal GQA attention (NEON).
//
// The query heads that share a KV head are processed together, so each cached K/V row is read once per KV head
// rather than once per query head (the head-major cache makes those rows one contiguous range), and the softmax
// is computed online over blocks of positions (running max, rescaled sum and weighted V sum, normalized at the
// end), so no per-head score buffer of the whole context is needed. (row, KV head) pairs go to the threads. The result equals the generic kernel up to rounding (reordered sums, vector exp/tanh). HD not a
// multiple of 4 uses the generic kernel. The cache holds float or binary16 (FCVTL converts four values exactly);
// kv_store_f32 into an f16 cache rounds with FCVTN (round to nearest even, bit for bit as the generic kernel),
// into an f32 cache it is the generic copy (which the compiler vectorizes).
#pragma once

#include <arm_neon.h>

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "saguaro/kernels/arm64/neon/common.h"
#include "saguaro/kernels/arm64/neon/vmath.h"
#include "saguaro/kernels/generic/attention.h"
#include "saguaro/kernels/parallel.h"

namespace saguaro::kernels::arm64_neon {

namespace attention_detail {

/// Positions per softmax block.
constexpr int kBlock = 64;

/// Cache elements as floats (common.h).
using detail::load4;

/// s[m][u] = q_m·k_u for the M query heads q_m = q + m·HD of one KV head and its contiguous rows k_u = k + u·HD,
/// u < n. Each K row is loaded (and converted) once for all M heads: R = 4/M rows at a time (one row for M ≥ 4)
/// keep M·R accumulators, reduced together.
template <int HD, int M, class KV>
inline void dots(const float* q, const KV* k, int n, float (*s)[kBlock]) {
  constexpr int C = HD / 4;
  constexpr int R = M >= 4 ? 1 : 4 / M;
  int u = 0;
  for (; u + R <= n; u += R) {
    float32x4_t a[M * R];
    #pragma GCC unroll 16
    for (int e = 0; e < M * R; ++e) a[e] = vdupq_n_f32(0.0f);
    for (int c = 0; c < C; ++c) {
      float32x4_t kv[R];
      #pragma GCC unroll 4
      for (int r = 0; r < R; ++r) kv[r] = load4(k + (u + r) * HD + 4 * c);
      #pragma GCC unroll 16
      for (int m = 0; m < M; ++m) {
        const float32x4_t qv = vld1q_f32(q + m * HD + 4 * c);
        #pragma GCC unroll 4
        for (int r = 0; r < R; ++r) a[m * R + r] = vfmaq_f32(a[m * R + r], qv, kv[r]);
      }
    }
    float sums[M * R];
    detail::hsums<M * R>(a, sums);
    for (int m = 0; m < M; ++m)
      for (int r = 0; r < R; ++r) s[m][u + r] = sums[m * R + r];
  }
  for (; u < n; ++u)
    for (int m = 0; m < M; ++m) {
      float32x4_t a = vdupq_n_f32(0.0f);
      for (int c = 0; c < C; ++c) a = vfmaq_f32(a, vld1q_f32(q + m * HD + 4 * c), load4(k + u * HD + 4 * c));
      s[m][u] = detail::hsum(a);
    }
}

/// Attention of query row r (position p) for the M query heads of KV head kh, whose cached rows are contiguous
/// (kc/vc[KVH][S][HD]): scores and the running softmax over blocks of kBlock positions, then the block's V rows
/// weighted into M accumulators, CW vectors of HD at a time.
template <int H, int KVH, int HD, int S, int Window, bool DivideBySqrtHD, class KV>
inline void kv_head_group(int32_t r, int32_t p, int kh, const float* q, const KV* kc, const KV* vc, float scale,
                          float softcap, float* out) {
  constexpr int M = H / KVH;  // query heads per KV head
  constexpr int C = HD / 4;
  // V vectors per pass: up to one 64-byte line of a V row, with at most 16 accumulators (M × CW) live.
  constexpr int CW = C % 4 == 0 && M <= 4 ? 4 : (C % 2 == 0 && M <= 8 ? 2 : 1);
  alignas(16) float sc[M][kBlock];
  alignas(16) float acc[M][HD];
  float mx[M], sum[M], corr[M];
  const float32x4_t vscale = vdupq_n_f32(DivideBySqrtHD ? sqrtf(static_cast<float>(HD)) : scale);
  const float32x4_t vcap = vdupq_n_f32(softcap);
  const float32x4_t ninf = vdupq_n_f32(-__builtin_huge_valf());
  const int32_t t0 = (Window > 0 && p - Window + 1 > 0) ? p - Window + 1 : 0;
  const float* qg = q + (static_cast<int64_t>(r) * H + kh * M) * HD;
  const KV* kg = kc + static_cast<int64_t>(kh) * S * HD;
  const KV* vg = vc + static_cast<int64_t>(kh) * S * HD;
  for (int m = 0; m < M; ++m) {
    mx[m] = -__builtin_huge_valf();
    sum[m] = 0.0f;
    for (int i = 0; i < HD; ++i) acc[m][i] = 0.0f;
  }
  for (int32_t tb = t0; tb <= p; tb += kBlock) {
    const int nt = p + 1 - tb < kBlock ? p + 1 - tb : kBlock;
    const int nvec = (nt + 3) / 4;
    dots<HD, M>(qg, kg + static_cast<int64_t>(tb) * HD, nt, sc);
    for (int m = 0; m < M; ++m) {
      float* s = sc[m];
      for (int u = nt; u < nvec * 4; ++u) s[u] = 0.0f;
      // Scores, then the block's running max.
      float32x4_t bm = ninf;
      for (int u = 0; u < nvec * 4; u += 4) {
        float32x4_t v = vld1q_f32(s + u);
        v = DivideBySqrtHD ? vdivq_f32(v, vscale) : vmulq_f32(v, vscale);
        if (softcap > 0.0f) v = vmulq_f32(vcap, detail::tanh_ps(vdivq_f32(v, vcap)));
        vst1q_f32(s + u, v);
        bm = vmaxq_f32(bm, vbslq_f32(detail::first_lanes(nt - u), v, ninf));
      }
      const float old = mx[m];
      const float block_max = vmaxvq_f32(bm);
      mx[m] = old > block_max ? old : block_max;
      corr[m] = expf(old - mx[m]);  // 0 for the first block (old = -inf)
      // Exponentials and their sum; positions past nt weigh 0.
      const float32x4_t vmx = vdupq_n_f32(mx[m]);
      float32x4_t es = vdupq_n_f32(0.0f);
      for (int u = 0; u < nvec * 4; u += 4) {
        float32x4_t e = detail::exp_ps(vsubq_f32(vld1q_f32(s + u), vmx));
        e = vreinterpretq_f32_u32(vandq_u32(vreinterpretq_u32_f32(e), detail::first_lanes(nt - u)));
        vst1q_f32(s + u, e);
        es = vaddq_f32(es, e);
      }
      sum[m] = sum[m] * corr[m] + detail::hsum(es);
    }
    // acc = acc·corr + Σ_u e_u·v_u, CW vectors of HD at a time for all M heads.
    for (int c = 0; c < C; c += CW) {
      float32x4_t a[M][CW];
      #pragma GCC unroll 16
      for (int m = 0; m < M; ++m) {
        const float32x4_t cm = vdupq_n_f32(corr[m]);
        #pragma GCC unroll 4
        for (int w = 0; w < CW; ++w) a[m][w] = vmulq_f32(vld1q_f32(acc[m] + 4 * (c + w)), cm);
      }
      const KV* v = vg + static_cast<int64_t>(tb) * HD + 4 * c;
      for (int u = 0; u < nt; ++u, v += HD) {
        float32x4_t vv[CW];
        #pragma GCC unroll 4
        for (int w = 0; w < CW; ++w) vv[w] = load4(v + 4 * w);
        #pragma GCC unroll 16
        for (int m = 0; m < M; ++m) {
          const float e = sc[m][u];
          #pragma GCC unroll 4
          for (int w = 0; w < CW; ++w) a[m][w] = vfmaq_n_f32(a[m][w], vv[w], e);
        }
      }
      #pragma GCC unroll 16
      for (int m = 0; m < M; ++m)
        #pragma GCC unroll 4
        for (int w = 0; w < CW; ++w) vst1q_f32(acc[m] + 4 * (c + w), a[m][w]);
    }
  }
  for (int m = 0; m < M; ++m) {
    float* xb = out + (static_cast<int64_t>(r) * H + kh * M + m) * HD;
    const float32x4_t vs = vdupq_n_f32(sum[m]);
    for (int c = 0; c < C; ++c) vst1q_f32(xb + 4 * c, vdivq_f32(vld1q_f32(acc[m] + 4 * c), vs));
  }
}

}  // namespace attention_detail

/// Stores k/v rows into the caches (contract of generic::kv_store_f32, same bytes).
template <int KVH, int HD, int S, class KV>
inline void kv_store_f32(int32_t rows, int32_t pos0, const float* k, const float* v, KV* kc, KV* vc) {
  if constexpr (!std::is_same_v<KV, uint16_t> || HD % 4 != 0) {
    generic::kv_store_f32<KVH, HD, S>(rows, pos0, k, v, kc, vc);
  } else {
    generic::for_each_kv_row<KVH, HD, S>(rows, pos0, [&](int64_t src, int64_t dst) {
      for (int i = 0; i < HD; i += 4) {
        vst1_u16(kc + dst + i, vreinterpret_u16_f16(vcvt_f16_f32(vld1q_f32(k + src + i))));
        vst1_u16(vc + dst + i, vreinterpret_u16_f16(vcvt_f16_f32(vld1q_f32(v + src + i))));
      }
    });
  }
}

/// Causal GQA attention of q[rows][H][HD] over kc/vc[KVH][S][HD] into out[rows][H][HD] (contract of
/// generic::attention_f32; `scratch` is not used). The (row, KV head) pairs are independent and are split over
/// the threads of `par`.
template <int H, int KVH, int HD, int S, int Window, bool DivideBySqrtHD = false, class KV = float>
inline void attention_f32(int32_t rows, int32_t pos0, const float* q, const KV* kc, const KV* vc, float scale,
                          float softcap, float* scratch, float* out, const Parallel* par = nullptr) {
  static_assert(H % KVH == 0, "query heads must be a multiple of KV heads");
  static_assert(Window >= 0, "window is 0 (unlimited) or a positive length");
  if constexpr (HD % 4 != 0) {
    generic::attention_f32<H, KVH, HD, S, Window, DivideBySqrtHD>(rows, pos0, q, kc, vc, scale, softcap, scratch, out);
  } else {
    generic::for_each_kv_head_group<H, KVH, HD, Window>(par, rows, pos0, [&](int32_t r, int kh) {
      attention_detail::kv_head_group<H, KVH, HD, S, Window, DivideBySqrtHD>(r, pos0 + r, kh, q, kc, vc, scale,
                                                                            softcap, out);
    });
  }
}

}  // namespace saguaro::kernels::arm64_neon
