// GQA attention with an online softmax, written once for the ISA kernel sets over a per-ISA set of vector
// operations (`Isa`: x86/avx2/attention.h, arm64/neon/attention.h): causal attention over the KV cache, and the
// encoders' bidirectional attention over a call's own rows. The kernels keep the contracts of generic/attention.h's
// kv_store_f32 and attention_f32 and generic/attention_full.h's attention_full_f32; attention equals the generic
// kernels up to rounding (reordered sums, vector exp/tanh), the store equals it bit for bit.
//
// The query heads that share a KV head are processed together (for full attention, also several query rows), so
// each K/V row is read (and, from an f16 cache, converted) once per group rather than once per query vector, and the
// softmax is computed online over blocks of positions (running max, rescaled sum and weighted V sum, normalized at
// the end), so no score buffer of the whole context is needed. The positions a causal query row sees lie in at most
// three runs of contiguous rows: cached positions up to the end of the cache, cached positions from its start (a
// ring wraps at most once within a window), and the call's own rows, which attention_f32 first stages in its
// scratch as the cache would hold them; softmax blocks never straddle runs. (row, KV head) pairs go to the threads.
// Full attention reads its one run, all rows, from k/v[rows][KVH·HD] in place (rows KVH·HD apart); (KV head, block
// of rows) pairs go to the threads.
//
// `Isa` is a float32 vector micro-op set of the ISA (x86_avx2::detail::F32x8, arm64_neon::detail::F32x4: V of
// kLanes lanes; load of float and of binary16, exact; add, mul, fma(a, b, c) = a·b + c, hsum, hsums<n> in the ISA's
// fixed order, and the ops of vec/vmath.h's exp and tanh) that also provides:
//   first(v, n, fill): v in the lanes below n (any int), fill above; hmax(v): the largest lane;
//   prefetch_l1(p, bytes), prefetch_l2(p, bytes): requests of the bytes ahead (or nothing);
//   to_half(uint16_t* dst, const float* src): kLanes floats to binary16, to nearest even like cq::float_to_half;
//   weigh_values<HD, M, Ld>(acc, e, corr, v, n, vnext): acc[m] = acc[m]·corr[m] + Σ_{u<n} e[m][u]·v_u for the M
//   query vectors, v_u = v + u·Ld (vnext: the next KV head's same rows, to request ahead, or null) — the weighted
//   V sum, the one loop whose best order differs between the ISAs.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "saguaro/kernels/generic/attention.h"
#include "saguaro/kernels/generic/attention_full.h"
#include "saguaro/kernels/parallel.h"
#include "saguaro/kernels/vec/vmath.h"

/// Defines kv_store_f32, attention_f32 (generic/attention.h's contracts) and attention_full_f32
/// (generic/attention_full.h's) in the enclosing ISA namespace over
/// online_attention's templates with the vector operations of `Isa`. One definition, so that every ISA set has
/// the generic signatures.
#define SAGUARO_KERNELS_DEFINE_ONLINE_ATTENTION(Isa)                                                                 \
  template <int KVH, int HD, int S, class KV>                                                                        \
  inline void kv_store_f32(int32_t rows, int32_t pos0, const float* k, const float* v, KV* kc, KV* vc) {             \
    online_attention::store_kv_rows<Isa, KVH, HD>(rows, pos0, S, k, v, kc, vc);                                      \
  }                                                                                                                  \
  template <int H, int KVH, int HD, int S, int Window, bool DivideBySqrtHD = false, class KV = float>                \
  inline void attention_f32(int32_t rows, int32_t pos0, const float* q, const float* k, const float* v,              \
                            const KV* kc, const KV* vc, float scale, float softcap, float* scratch, float* out,      \
                            const Parallel* par = nullptr) {                                                         \
    online_attention::attention<Isa, H, KVH, HD, S, Window, DivideBySqrtHD>(rows, pos0, q, k, v, kc, vc, scale,     \
                                                                            softcap, scratch, out, par);             \
  }                                                                                                                  \
  template <int H, int KVH, int HD>                                                                                  \
  inline void attention_full_f32(int32_t rows, const float* q, const float* k, const float* v, float scale,          \
                                 float* out, const Parallel* par = nullptr) {                                        \
    online_attention::attention_full<Isa, H, KVH, HD>(rows, q, k, v, scale, out, par);                              \
  }

namespace saguaro::kernels::online_attention {

/// Positions per softmax block.
constexpr int kBlock = 64;

/// generic::store_kv_rows with the vector binary16 conversion of `Isa` (the same bytes); an f32 cache, or a head
/// size the vectors do not cover, takes the generic copy (which the compiler vectorizes).
template <class Isa, int KVH, int HD, class KV>
inline void store_kv_rows(int32_t rows, int32_t pos0, int32_t slots, const float* k, const float* v, KV* kc,
                          KV* vc) {
  if constexpr (!std::is_same_v<KV, uint16_t> || HD % Isa::kLanes != 0) {
    generic::store_kv_rows<KVH, HD>(rows, pos0, slots, k, v, kc, vc);
  } else {
    generic::for_each_kv_row<KVH, HD>(rows, pos0, slots, [&](int64_t src, int64_t dst) {
      for (int i = 0; i < HD; i += Isa::kLanes) {
        Isa::to_half(kc + dst + i, k + src + i);
        Isa::to_half(vc + dst + i, v + src + i);
      }
    });
  }
}

/// n contiguous K and V rows of one KV head, row u at k/v + u·HD; the next KV head's rows of the same positions lie
/// `next` elements further (0: this is the last KV head).
template <class KV>
struct Run {
  const KV* k;
  const KV* v;
  int32_t n;
  int64_t next;
};

/// Calls f(run) for the runs that hold positions [t0, p] of KV head kh, in position order: positions before pos0
/// from the caches kc/vc[KVH][S][HD] (slot t % S), the call's own from the staged rows ks/vs[KVH][rows][HD].
template <int KVH, int HD, int S, class KV, class F>
inline void for_each_run(int32_t t0, int32_t p, int32_t pos0, int32_t rows, int kh, const KV* kc, const KV* vc,
                         const KV* ks, const KV* vs, F&& f) {
  const bool last = kh + 1 == KVH;
  int32_t t = t0;
  while (t < pos0) {
    const int32_t slot = t % S;
    const int32_t n = pos0 - t < S - slot ? pos0 - t : S - slot;
    const int64_t at = (static_cast<int64_t>(kh) * S + slot) * HD;
    f(Run<KV>{kc + at, vc + at, n, last ? 0 : static_cast<int64_t>(S) * HD});
    t += n;
  }
  const int64_t at = (static_cast<int64_t>(kh) * rows + (t - pos0)) * HD;
  f(Run<KV>{ks + at, vs + at, p + 1 - t, last ? 0 : static_cast<int64_t>(rows) * HD});
}

/// s[m][u] = q_m·k_u for M query vectors q_m = q + m·HD (the query heads of one KV head, or more) and rows
/// k_u = k + u·Ld of one KV head, u < n (Ld = HD: contiguous rows, as in the cache). Each K row is loaded (and
/// converted) once for all M vectors: R = kLanes/M rows at a time (one row for M ≥ kLanes) keep M·R ≤ kLanes
/// accumulators, reduced together. Contiguous rows are requested 8 ahead, and with `knext` (the same rows of the
/// next KV head) each step also requests those rows into L2.
template <class Isa, int HD, int M, int Ld, class KV>
inline void dots(const float* q, const KV* k, int n, float (*s)[kBlock], const KV* knext) {
  using V = typename Isa::V;
  constexpr int L = Isa::kLanes;
  constexpr int C = HD / L;
  constexpr int R = M >= L ? 1 : L / M;
  constexpr int64_t kStepBytes = int64_t{R} * HD * sizeof(KV);
  int u = 0;
  for (; u + R <= n; u += R) {
    V a[M * R];
    #pragma GCC unroll 16
    for (int e = 0; e < M * R; ++e) a[e] = Isa::zero();
    for (int c = 0; c < C; ++c) {
      V kv[R];
      #pragma GCC unroll 8
      for (int r = 0; r < R; ++r) kv[r] = Isa::load(k + (u + r) * Ld + L * c);
      #pragma GCC unroll 16
      for (int m = 0; m < M; ++m) {
        const V qv = Isa::load(q + m * HD + L * c);
        #pragma GCC unroll 8
        for (int r = 0; r < R; ++r) a[m * R + r] = Isa::fma(qv, kv[r], a[m * R + r]);
      }
    }
    float sums[M * R];
    Isa::template hsums<M * R>(a, sums);
    for (int m = 0; m < M; ++m)
      for (int r = 0; r < R; ++r) s[m][u + r] = sums[m * R + r];
    // The rows 8 ahead (contiguous in the head-major cache): streaming them in keeps the loads of the FMA chains
    // from waiting on memory.
    if constexpr (Ld == HD) {
      if (knext) Isa::prefetch_l2(knext + u * HD, kStepBytes);
      Isa::prefetch_l1(k + (u + 8) * HD, kStepBytes);
    }
  }
  for (; u < n; ++u)
    for (int m = 0; m < M; ++m) {
      V a = Isa::zero();
      for (int c = 0; c < C; ++c) a = Isa::fma(Isa::load(q + m * HD + L * c), Isa::load(k + u * Ld + L * c), a);
      s[m][u] = Isa::hsum(a);
    }
}

/// One query head's block of nt dot products s[0..nt): scores (scaled, soft-capped), the running max mx, the
/// factor corr = e^(old max − new max) that rescales what came before, e^(score − mx) in s (0 past nt, up to a
/// whole vector) and the running sum.
template <class Isa, bool DivideBySqrtHD>
inline void softmax_block(float* s, int nt, typename Isa::V vscale, float softcap, float& mx, float& sum,
                          float& corr) {
  using V = typename Isa::V;
  constexpr int L = Isa::kLanes;
  const int end = (nt + L - 1) / L * L;
  const V vcap = Isa::set1(softcap);
  const V ninf = Isa::set1(-__builtin_huge_valf());
  for (int u = nt; u < end; ++u) s[u] = 0.0f;
  V bm = ninf;
  for (int u = 0; u < end; u += L) {
    V x = Isa::load(s + u);
    x = DivideBySqrtHD ? Isa::div(x, vscale) : Isa::mul(x, vscale);
    if (softcap > 0.0f) x = Isa::mul(vcap, vec::tanh<Isa>(Isa::div(x, vcap)));
    Isa::store(s + u, x);
    bm = Isa::max(bm, Isa::first(x, nt - u, ninf));
  }
  const float old = mx;
  const float block_max = Isa::hmax(bm);
  mx = old > block_max ? old : block_max;
  corr = expf(old - mx);  // 0 for the first block (old = -inf)
  const V vmx = Isa::set1(mx);
  V es = Isa::zero();
  for (int u = 0; u < end; u += L) {
    const V e = Isa::first(vec::exp<Isa>(Isa::sub(Isa::load(s + u), vmx)), nt - u, Isa::zero());
    Isa::store(s + u, e);
    es = Isa::add(es, e);
  }
  sum = sum * corr + Isa::hsum(es);
}

/// The online softmax of G query vectors q_g = q + g·HD over blocks of at most kBlock positions, fed in position
/// order: per block the scores and the running max and sum, then the block's V rows weighted into G accumulators.
template <class Isa, int HD, int G, bool DivideBySqrtHD>
struct OnlineSoftmax {
  using V = typename Isa::V;
  alignas(64) float sc[G][kBlock];
  alignas(64) float acc[G][HD];
  float mx[G], sum[G], corr[G];

  OnlineSoftmax() {
    for (int g = 0; g < G; ++g) {
      mx[g] = -__builtin_huge_valf();
      sum[g] = 0.0f;
      for (int i = 0; i < HD; ++i) acc[g][i] = 0.0f;
    }
  }

  /// The nt positions whose K and V rows are kb + u·Ld and vb + u·Ld (next: the next KV head's same rows lie that
  /// many elements further, 0 for none). vscale: the score factor, or sqrt(HD) to divide by.
  template <int Ld, class KV>
  void block(const float* q, const KV* kb, const KV* vb, int nt, int64_t next, V vscale, float softcap) {
    if constexpr (Ld == HD) {
      Isa::prefetch_l2(kb, int64_t{nt} * HD * sizeof(KV));
      Isa::prefetch_l2(vb, int64_t{nt} * HD * sizeof(KV));
    }
    dots<Isa, HD, G, Ld>(q, kb, nt, sc, next ? kb + next : nullptr);
    for (int g = 0; g < G; ++g) softmax_block<Isa, DivideBySqrtHD>(sc[g], nt, vscale, softcap, mx[g], sum[g], corr[g]);
    Isa::template weigh_values<HD, G, Ld>(acc, sc, corr, vb, nt, next ? vb + next : nullptr);
  }

  /// q_g's result, acc/sum, into out(g) (HD floats; null: dropped).
  template <class Out>
  void finish(Out&& out) const {
    constexpr int L = Isa::kLanes;
    for (int g = 0; g < G; ++g) {
      float* xb = out(g);
      if (!xb) continue;
      const V vsum = Isa::set1(sum[g]);
      for (int c = 0; c < HD / L; ++c) Isa::store(xb + L * c, Isa::div(Isa::load(acc[g] + L * c), vsum));
    }
  }
};

/// The score factor OnlineSoftmax::block takes: scale, or sqrt(HD) to divide by.
template <class Isa, int HD, bool DivideBySqrtHD>
inline typename Isa::V score_factor(float scale) {
  return Isa::set1(DivideBySqrtHD ? sqrtf(static_cast<float>(HD)) : scale);
}

/// Attention of query row r for the M query heads of KV head kh over the runs of positions it sees (for_each_run),
/// in softmax blocks that never straddle runs.
template <class Isa, int H, int KVH, int HD, int S, int Window, bool DivideBySqrtHD, class KV>
inline void kv_head_group(int32_t r, int32_t pos0, int32_t rows, int kh, const float* q, const KV* kc, const KV* vc,
                          const KV* ks, const KV* vs, float scale, float softcap, float* out) {
  constexpr int M = H / KVH;  // query heads per KV head
  const int32_t p = pos0 + r;
  const int32_t t0 = (Window > 0 && p - Window + 1 > 0) ? p - Window + 1 : 0;
  const int64_t at = (static_cast<int64_t>(r) * H + kh * M) * HD;
  const typename Isa::V vscale = score_factor<Isa, HD, DivideBySqrtHD>(scale);
  OnlineSoftmax<Isa, HD, M, DivideBySqrtHD> sm;
  // Decode attention waits on memory more than it computes (each KV head's rows are a short contiguous range from
  // DRAM): each block's own rows are requested into L2 when the block starts, and while this head computes, every
  // step requests the rows it has just read of the next KV head (which the same thread usually runs next; its
  // positions are the same). Requesting the next head's rows in one burst instead, before computing, issued about a
  // thousand requests back to back and overlapped nothing: Qwen3-0.6B's shape after a 128-token prompt, f16 cache,
  // one thread, alternating runs on x86: 144-153 thousand cycles per layer with the burst, 100-107 thousand
  // interleaved (decode 69-74 -> 75-80 tok/s). Before either, the one pass over K for all M heads (dots) and the
  // block requests took attention from 2.45 to 1.75-1.9 ms per token.
  for_each_run<KVH, HD, S>(t0, p, pos0, rows, kh, kc, vc, ks, vs, [&](const Run<KV>& run) {
    for (int32_t b = 0; b < run.n; b += kBlock) {
      const int nt = run.n - b < kBlock ? run.n - b : kBlock;
      sm.template block<HD>(q + at, run.k + static_cast<int64_t>(b) * HD, run.v + static_cast<int64_t>(b) * HD, nt,
                            run.next, vscale, softcap);
    }
  });
  sm.finish([&](int m) { return out + at + static_cast<int64_t>(m) * HD; });
}

/// attention_f32 (generic/attention.h's contract; `scratch` holds the staged own rows, its scores are unused): the
/// call's K/V rows are staged on the calling thread, then the (row, KV head) pairs are split over the threads of
/// `par`. A head size the vectors do not cover uses the generic kernel.
template <class Isa, int H, int KVH, int HD, int S, int Window, bool DivideBySqrtHD, class KV>
inline void attention(int32_t rows, int32_t pos0, const float* q, const float* k, const float* v, const KV* kc,
                      const KV* vc, float scale, float softcap, float* scratch, float* out, const Parallel* par) {
  static_assert(H % KVH == 0, "query heads must be a multiple of KV heads");
  static_assert(Window >= 0, "window is 0 (unlimited) or a positive length");
  if constexpr (HD % Isa::kLanes != 0) {
    generic::attention_f32<H, KVH, HD, S, Window, DivideBySqrtHD>(rows, pos0, q, k, v, kc, vc, scale, softcap,
                                                                  scratch, out);
  } else {
    KV* ks = generic::staged_keys<S, KV>(scratch);
    KV* vs = ks + static_cast<int64_t>(KVH) * rows * HD;
    store_kv_rows<Isa, KVH, HD>(rows, 0, rows, k, v, ks, vs);
    generic::for_each_kv_head_group<H, KVH, HD, Window>(par, rows, pos0, [&](int32_t r, int kh) {
      kv_head_group<Isa, H, KVH, HD, S, Window, DivideBySqrtHD>(r, pos0, rows, kh, q, kc, vc, ks, vs, scale, softcap,
                                                                out);
    });
  }
}

/// The query vectors of one OnlineSoftmax in attention_full: a group of kFullQueryVectors/M query rows (one row for
/// M ≥ kFullQueryVectors) of one KV head's M query heads, so each K/V row read serves all of them.
constexpr int kFullQueryVectors = 8;
/// The groups of query rows a unit of attention_full's work runs together: each block of K/V rows, read once from
/// L2 or memory, serves all of them from L1.
constexpr int kFullGroups = 8;

/// attention_full_f32 (generic/attention_full.h's contract) over OnlineSoftmax: a unit of work is kFullGroups groups
/// of query rows of one KV head, which take each block of kBlock K/V rows (KVH·HD floats apart in k/v) in turn.
/// Units are split over the threads of `par`, a KV head's units in order so that a thread's next unit reads the K/V
/// rows its last one did. A group's query vectors are copied together (zeros stand in for the rows past the last,
/// whose results are dropped). A row's group and place in it follow from its index, so its result does not depend
/// on the thread split. A head size the vectors do not cover uses the generic kernel.
template <class Isa, int H, int KVH, int HD>
inline void attention_full(int32_t rows, const float* q, const float* k, const float* v, float scale, float* out,
                           const Parallel* par) {
  static_assert(H % KVH == 0, "query heads must be a multiple of KV heads");
  if constexpr (HD % Isa::kLanes != 0) {
    generic::attention_full_f32<H, KVH, HD>(rows, q, k, v, scale, out, par);
  } else {
    constexpr int M = H / KVH;
    constexpr int RB = M >= kFullQueryVectors ? 1 : kFullQueryVectors / M;  // query rows per group
    constexpr int G = RB * M;
    constexpr int64_t kUnitRows = int64_t{RB} * kFullGroups;
    constexpr int Ld = KVH * HD;
    const int64_t units = (rows + kUnitRows - 1) / kUnitRows;
    const int64_t work = int64_t{2} * rows * H * rows * HD;
    const typename Isa::V vscale = score_factor<Isa, HD, false>(scale);
    parallel_ranges(par, KVH * units, 1, work, [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) {
        const int kh = static_cast<int>(i / units);
        const int64_t u0 = i % units * kUnitRows;
        const int groups = static_cast<int>((rows - u0 < kUnitRows ? rows - u0 : kUnitRows) + RB - 1) / RB;
        alignas(64) float qg[kFullGroups][G][HD];
        OnlineSoftmax<Isa, HD, G, false> sm[kFullGroups];
        for (int j = 0; j < groups; ++j)
          for (int g = 0; g < G; ++g) {
            const int64_t r = u0 + j * RB + g / M;
            for (int c = 0; c < HD; ++c) qg[j][g][c] = r < rows ? q[(r * H + kh * M + g % M) * HD + c] : 0.0f;
          }
        for (int32_t b = 0; b < rows; b += kBlock) {
          const int nt = rows - b < kBlock ? rows - b : kBlock;
          const int64_t at = static_cast<int64_t>(b) * Ld + kh * HD;
          for (int j = 0; j < groups; ++j) sm[j].template block<Ld>(qg[j][0], k + at, v + at, nt, 0, vscale, 0.0f);
        }
        for (int j = 0; j < groups; ++j)
          sm[j].finish([&](int g) {
            const int64_t r = u0 + j * RB + g / M;
            return r < rows ? out + (r * H + kh * M + g % M) * HD : nullptr;
          });
      }
    });
  }
}

}  // namespace saguaro::kernels::online_attention
