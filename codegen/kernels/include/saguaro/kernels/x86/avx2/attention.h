// Causal GQA attention (AVX2+FMA).
//
// The query heads that share a KV head are processed together, so each cached K/V row is read (and converted)
// once per KV head rather than once per query head (the head-major cache makes those rows one contiguous range),
// and the softmax is computed online over blocks of positions (running max, rescaled sum and weighted V sum,
// normalized at the end), so no per-head score buffer of the whole context is needed. (row, KV head) pairs go to the threads. The
// result equals the generic kernel up to rounding (reordered sums, vector exp/tanh). HD not a multiple of 8 uses
// the generic kernel. The cache holds float or binary16 (F16C converts eight values per instruction, exactly);
// kv_store_f32 into an f16 cache rounds with F16C, bit for bit as the generic kernel, into an f32 cache it is
// the generic copy (which the compiler vectorizes).
#pragma once

#include <immintrin.h>

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "saguaro/kernels/generic/attention.h"
#include "saguaro/kernels/parallel.h"
#include "saguaro/kernels/x86/avx2/common.h"
#include "saguaro/kernels/x86/avx2/vmath.h"

namespace saguaro::kernels::x86_avx2 {

namespace attention_detail {

/// Positions per softmax block.
constexpr int kBlock = 64;

/// Cache elements as floats (common.h).
using detail::load8;

/// Requests the cache lines of k[0, n) and v[0, n) into L2.
template <class KV>
inline void prefetch_l2(const KV* k, const KV* v, int64_t n) {
  const char* kb = reinterpret_cast<const char*>(k);
  const char* vb = reinterpret_cast<const char*>(v);
  for (int64_t l = 0; l < n * static_cast<int64_t>(sizeof(KV)); l += 64) {
    _mm_prefetch(kb + l, _MM_HINT_T1);
    _mm_prefetch(vb + l, _MM_HINT_T1);
  }
}

/// The largest lane of v.
inline float hmax(__m256 v) {
  __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  m = _mm_max_ps(m, _mm_movehl_ps(m, m));
  m = _mm_max_ss(m, _mm_movehdup_ps(m));
  return _mm_cvtss_f32(m);
}

/// s[m][u] = q_m·k_u for the M query heads q_m = q + m·HD of one KV head and its contiguous rows k_u = k + u·HD,
/// u < n. Each K row is loaded (and converted) once for all M heads: R = 8/M rows at a time (one row for M ≥ 8)
/// keep M·R ≤ 8 accumulators, reduced together. With `knext` (the same rows of the next KV head), each step also
/// requests those rows into L2.
template <int HD, int M, class KV>
inline void dots(const float* q, const KV* k, int n, float (*s)[kBlock], const KV* knext) {
  constexpr int C = HD / 8;
  constexpr int R = M >= 8 ? 1 : 8 / M;
  int u = 0;
  for (; u + R <= n; u += R) {
    __m256 a[M * R];
    #pragma GCC unroll 16
    for (int e = 0; e < M * R; ++e) a[e] = _mm256_setzero_ps();
    for (int c = 0; c < C; ++c) {
      __m256 kv[R];
      #pragma GCC unroll 8
      for (int r = 0; r < R; ++r) kv[r] = load8(k + (u + r) * HD + 8 * c);
      #pragma GCC unroll 16
      for (int m = 0; m < M; ++m) {
        const __m256 qv = _mm256_loadu_ps(q + m * HD + 8 * c);
        #pragma GCC unroll 8
        for (int r = 0; r < R; ++r) a[m * R + r] = _mm256_fmadd_ps(qv, kv[r], a[m * R + r]);
      }
    }
    float sums[M * R];
    detail::hsums<M * R>(a, sums);
    for (int m = 0; m < M; ++m)
      for (int r = 0; r < R; ++r) s[m][u + r] = sums[m * R + r];
    // The rows 8 ahead (contiguous in the head-major cache): streaming them in keeps the loads of the FMA chains
    // from waiting on memory.
    if (knext) {
      const char* other = reinterpret_cast<const char*>(knext + u * HD);
      for (int l = 0; l < R * HD * static_cast<int>(sizeof(KV)); l += 64) _mm_prefetch(other + l, _MM_HINT_T1);
    }
    const char* next = reinterpret_cast<const char*>(k + (u + 8) * HD);
    for (int l = 0; l < R * HD * static_cast<int>(sizeof(KV)); l += 64) _mm_prefetch(next + l, _MM_HINT_T0);
  }
  for (; u < n; ++u)
    for (int m = 0; m < M; ++m) {
      __m256 a = _mm256_setzero_ps();
      for (int c = 0; c < C; ++c) a = _mm256_fmadd_ps(_mm256_loadu_ps(q + m * HD + 8 * c), load8(k + u * HD + 8 * c), a);
      s[m][u] = detail::hsum(a);
    }
}

/// Attention of query row r (position p) for the M query heads of KV head kh, whose cached rows are contiguous
/// (kc/vc[KVH][S][HD]): scores and the running softmax over blocks of kBlock positions, then the block's V rows
/// weighted into M accumulators.
template <int H, int KVH, int HD, int S, int Window, bool DivideBySqrtHD, class KV>
inline void kv_head_group(int32_t r, int32_t p, int kh, const float* q, const KV* kc, const KV* vc, float scale,
                          float softcap, float* out) {
  constexpr int M = H / KVH;  // query heads per KV head
  constexpr int C = HD / 8;
  alignas(32) float sc[M][kBlock];
  alignas(32) float acc[M][HD];
  float mx[M], sum[M], corr[M];
  const __m256 vscale = _mm256_set1_ps(DivideBySqrtHD ? sqrtf(static_cast<float>(HD)) : scale);
  const __m256 vcap = _mm256_set1_ps(softcap);
  const __m256 ninf = _mm256_set1_ps(-__builtin_huge_valf());
  const int32_t t0 = (Window > 0 && p - Window + 1 > 0) ? p - Window + 1 : 0;
  const float* qg = q + (static_cast<int64_t>(r) * H + kh * M) * HD;
  const KV* kg = kc + static_cast<int64_t>(kh) * S * HD;
  const KV* vg = vc + static_cast<int64_t>(kh) * S * HD;
  for (int m = 0; m < M; ++m) {
    mx[m] = -__builtin_huge_valf();
    sum[m] = 0.0f;
    for (int i = 0; i < HD; ++i) acc[m][i] = 0.0f;
  }
  // Decode attention waits on memory more than it computes (each KV head's rows are a short contiguous range from
  // DRAM): each block's own rows are requested into L2 when the block starts, and while this head computes, every
  // step requests the rows it has just read of the next KV head (which the same thread usually runs next; its
  // positions are the same). Requesting the next head's rows in one burst instead, before computing, issued about a
  // thousand requests back to back and overlapped nothing: Qwen3-0.6B's shape after a 128-token prompt, f16 cache,
  // one thread, alternating runs: 144-153 thousand cycles per layer with the burst, 100-107 thousand interleaved
  // (decode 69-74 -> 75-80 tok/s). Before either, the one pass over K for all M heads (dots) and the block
  // requests took attention from 2.45 to 1.75-1.9 ms per token.
  const KV* knext = kh + 1 < KVH ? kg + static_cast<int64_t>(S) * HD : nullptr;
  const KV* vnext = kh + 1 < KVH ? vg + static_cast<int64_t>(S) * HD : nullptr;
  for (int32_t tb = t0; tb <= p; tb += kBlock) {
    const int nt = p + 1 - tb < kBlock ? p + 1 - tb : kBlock;
    const int nchunks = (nt + 7) / 8;
    prefetch_l2(kg + static_cast<int64_t>(tb) * HD, vg + static_cast<int64_t>(tb) * HD, nt * HD);
    dots<HD, M>(qg, kg + static_cast<int64_t>(tb) * HD, nt, sc,
                knext ? knext + static_cast<int64_t>(tb) * HD : nullptr);
    for (int m = 0; m < M; ++m) {
      float* s = sc[m];
      for (int u = nt; u < nchunks * 8; ++u) s[u] = 0.0f;
      // Scores, then the block's running max.
      __m256 bm = ninf;
      for (int u = 0; u < nchunks * 8; u += 8) {
        __m256 v = _mm256_loadu_ps(s + u);
        v = DivideBySqrtHD ? _mm256_div_ps(v, vscale) : _mm256_mul_ps(v, vscale);
        if (softcap > 0.0f) v = _mm256_mul_ps(vcap, detail::tanh_ps(_mm256_div_ps(v, vcap)));
        _mm256_storeu_ps(s + u, v);
        bm = _mm256_max_ps(bm, _mm256_blendv_ps(ninf, v, _mm256_castsi256_ps(detail::first_lanes(nt - u))));
      }
      const float old = mx[m];
      const float block_max = hmax(bm);
      mx[m] = old > block_max ? old : block_max;
      corr[m] = expf(old - mx[m]);  // 0 for the first block (old = -inf)
      // Exponentials and their sum; positions past nt weigh 0.
      const __m256 vmx = _mm256_set1_ps(mx[m]);
      __m256 es = _mm256_setzero_ps();
      for (int u = 0; u < nchunks * 8; u += 8) {
        __m256 e = detail::exp_ps(_mm256_sub_ps(_mm256_loadu_ps(s + u), vmx));
        e = _mm256_and_ps(e, _mm256_castsi256_ps(detail::first_lanes(nt - u)));
        _mm256_storeu_ps(s + u, e);
        es = _mm256_add_ps(es, e);
      }
      sum[m] = sum[m] * corr[m] + detail::hsum(es);
    }
    // acc = acc·corr + Σ_u e_u·v_u: the block's V rows are read once, in order (prefetched 8 rows ahead), and
    // each accumulator vector (in L1) takes four positions per load and store.
    for (int m = 0; m < M; ++m) {
      const __m256 cm = _mm256_set1_ps(corr[m]);
      for (int c = 0; c < C; ++c) _mm256_store_ps(acc[m] + 8 * c, _mm256_mul_ps(_mm256_load_ps(acc[m] + 8 * c), cm));
    }
    const KV* v = vg + static_cast<int64_t>(tb) * HD;
    int u = 0;
    for (; u + 4 <= nt; u += 4, v += 4 * HD) {
      const char* ahead = reinterpret_cast<const char*>(v + 8 * HD);
      for (int l = 0; l < 4 * HD * static_cast<int>(sizeof(KV)); l += 64) _mm_prefetch(ahead + l, _MM_HINT_T0);
      if (vnext) {
        const char* other = reinterpret_cast<const char*>(vnext + (v - vg));
        for (int l = 0; l < 4 * HD * static_cast<int>(sizeof(KV)); l += 64) _mm_prefetch(other + l, _MM_HINT_T1);
      }
      __m256 e[M][4];
      #pragma GCC unroll 16
      for (int m = 0; m < M; ++m)
        #pragma GCC unroll 4
        for (int z = 0; z < 4; ++z) e[m][z] = _mm256_broadcast_ss(sc[m] + u + z);
      #pragma GCC unroll 16
      for (int c = 0; c < C; ++c) {
        __m256 vv[4];
        #pragma GCC unroll 4
        for (int z = 0; z < 4; ++z) vv[z] = load8(v + z * HD + 8 * c);
        #pragma GCC unroll 16
        for (int m = 0; m < M; ++m) {
          __m256 a = _mm256_load_ps(acc[m] + 8 * c);
          #pragma GCC unroll 4
          for (int z = 0; z < 4; ++z) a = _mm256_fmadd_ps(e[m][z], vv[z], a);
          _mm256_store_ps(acc[m] + 8 * c, a);
        }
      }
    }
    for (; u < nt; ++u, v += HD)
      for (int c = 0; c < C; ++c) {
        const __m256 v0 = load8(v + 8 * c);
        for (int m = 0; m < M; ++m)
          _mm256_store_ps(acc[m] + 8 * c,
                          _mm256_fmadd_ps(_mm256_broadcast_ss(sc[m] + u), v0, _mm256_load_ps(acc[m] + 8 * c)));
      }
  }
  for (int m = 0; m < M; ++m) {
    float* xb = out + (static_cast<int64_t>(r) * H + kh * M + m) * HD;
    const __m256 vs = _mm256_set1_ps(sum[m]);
    for (int c = 0; c < C; ++c) _mm256_storeu_ps(xb + 8 * c, _mm256_div_ps(_mm256_load_ps(acc[m] + 8 * c), vs));
  }
}

}  // namespace attention_detail

/// Stores k/v rows into the caches (contract of generic::kv_store_f32, same bytes).
template <int KVH, int HD, int S, class KV>
inline void kv_store_f32(int32_t rows, int32_t pos0, const float* k, const float* v, KV* kc, KV* vc) {
  if constexpr (!std::is_same_v<KV, uint16_t> || HD % 8 != 0) {
    generic::kv_store_f32<KVH, HD, S>(rows, pos0, k, v, kc, vc);
  } else {
    generic::for_each_kv_row<KVH, HD, S>(rows, pos0, [&](int64_t src, int64_t dst) {
      for (int i = 0; i < HD; i += 8) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(kc + dst + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(k + src + i), _MM_FROUND_TO_NEAREST_INT));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(vc + dst + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(v + src + i), _MM_FROUND_TO_NEAREST_INT));
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
  if constexpr (HD % 8 != 0) {
    generic::attention_f32<H, KVH, HD, S, Window, DivideBySqrtHD>(rows, pos0, q, kc, vc, scale, softcap, scratch, out);
  } else {
    generic::for_each_kv_head_group<H, KVH, HD, Window>(par, rows, pos0, [&](int32_t r, int kh) {
      attention_detail::kv_head_group<H, KVH, HD, S, Window, DivideBySqrtHD>(r, pos0 + r, kh, q, kc, vc, scale,
                                                                            softcap, out);
    });
  }
}

}  // namespace saguaro::kernels::x86_avx2
