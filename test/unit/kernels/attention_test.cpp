// kv_store_f32 and attention_f32 against double-precision causal GQA attention: sequences run through full caches
// and rings (a sliding layer's window) in calls of various sizes, as generated code runs them.
#include "saguaro/kernels/kernels.h"
#include "test_util.h"

#include <cstring>
#include <limits>

namespace saguaro::kernels::test {
namespace {

/// Causal (optionally windowed, soft-capped) GQA attention in double for positions [0, n): k/v [n][kvh·hd] hold
/// every position's K/V as the cache holds them, q [n][heads·hd] every position's queries.
std::vector<double> RefAttention(int n, int heads, int kvh, int hd, int window, bool div_sqrt, float scale,
                                 float softcap, const std::vector<float>& q, const std::vector<double>& k,
                                 const std::vector<double>& v) {
  std::vector<double> out(static_cast<size_t>(n) * heads * hd, 0.0);
  const int kvd = kvh * hd;
  for (int p = 0; p < n; ++p) {
    const int t0 = window > 0 ? std::max(0, p - window + 1) : 0;
    for (int h = 0; h < heads; ++h) {
      const int g = h / (heads / kvh);
      std::vector<double> s;
      for (int t = t0; t <= p; ++t) {
        double dot = 0.0;
        for (int i = 0; i < hd; ++i) dot += static_cast<double>(q[(p * heads + h) * hd + i]) * k[t * kvd + g * hd + i];
        double score = div_sqrt ? dot / std::sqrt(static_cast<double>(hd)) : dot * scale;
        if (softcap > 0) score = softcap * std::tanh(score / softcap);
        s.push_back(score);
      }
      const double mx = *std::max_element(s.begin(), s.end());
      double sum = 0.0;
      for (auto& x : s) sum += (x = std::exp(x - mx));
      for (int t = t0; t <= p; ++t)
        for (int i = 0; i < hd; ++i) out[(p * heads + h) * hd + i] += s[t - t0] / sum * v[t * kvd + g * hd + i];
    }
  }
  return out;
}

// The two cache element types, as the reference sees them. The f16 cache's rounding is checked against the
// compiler's own half type (CompilerHalf, test_util.h).
float ToCache(float x, float) { return x; }
uint16_t ToCache(float x, uint16_t) { return CompilerHalfBits(x); }
double FromCache(float x) { return x; }
double FromCache(uint16_t bits) { return CompilerHalfValue(bits); }

/// Runs a sequence through caches of S positions (element type KV) in calls of `chunks` rows each, as generated
/// code does — attention_f32 over the cache and the call's own k/v rows, then kv_store_f32 — and compares every
/// position's output with RefAttention over K/V rounded as the cache holds them. The caches and the scratch start
/// as NaN, so reading a slot no store has written, or a score or staged row the kernel did not write, fails.
template <int H, int KVH, int HD, int S, int Window, bool DivSqrt = false, class KV = float>
void CheckAttention(const std::vector<int32_t>& chunks, float scale, float softcap) {
  SCOPED_TRACE(testing::Message() << "H " << H << " KVH " << KVH << " HD " << HD << " S " << S << " Window "
                                  << Window << " cache bytes " << sizeof(KV));
  constexpr int kKvd = KVH * HD;
  int32_t n = 0;
  for (int32_t rows : chunks) n += rows;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> k = RandomFloats(static_cast<size_t>(n) * kKvd, 200 + H + KVH + HD);
  const std::vector<float> v = RandomFloats(static_cast<size_t>(n) * kKvd, 300 + H + KVH + HD);
  const std::vector<float> q = RandomFloats(static_cast<size_t>(n) * H * HD, 600 + n, -3.0f, 3.0f);
  std::vector<KV> kc(S * kKvd, ToCache(nan, KV{})), vc(kc);
  std::vector<float> out(q.size(), nan);
  int32_t pos0 = 0;
  for (int32_t rows : chunks) {
    std::vector<float> scratch(attention_scratch_floats(KVH, HD, S, rows), nan);
    const int64_t at = static_cast<int64_t>(pos0) * kKvd;
    attention_f32<H, KVH, HD, S, Window, DivSqrt>(rows, pos0, q.data() + static_cast<int64_t>(pos0) * H * HD,
                                                  k.data() + at, v.data() + at, kc.data(), vc.data(), scale, softcap,
                                                  scratch.data(), out.data() + static_cast<int64_t>(pos0) * H * HD);
    kv_store_f32<KVH, HD, S>(rows, pos0, k.data() + at, v.data() + at, kc.data(), vc.data());
    pos0 += rows;
  }
  std::vector<double> kd(k.size()), vd(v.size());
  for (size_t i = 0; i < k.size(); ++i) kd[i] = FromCache(ToCache(k[i], KV{})), vd[i] = FromCache(ToCache(v[i], KV{}));
  ExpectClose(out, RefAttention(n, H, KVH, HD, Window, DivSqrt, scale, softcap, q, kd, vd));
}

TEST(AttentionF32, SingleRowDecode) {
  CheckAttention<8, 4, 8, 16, 0>({1}, 0.35355339f, 0.0f);
  CheckAttention<8, 4, 8, 16, 0>({9, 1, 1}, 0.35355339f, 0.0f);
  CheckAttention<8, 4, 8, 16, 0>(std::vector<int32_t>(16, 1), 0.35355339f, 0.0f);  // the whole cache
}

TEST(AttentionF32, PrefillRowsFromZeroAndOffset) {
  CheckAttention<4, 4, 16, 32, 0>({7}, 0.25f, 0.0f);
  CheckAttention<4, 4, 16, 32, 0>({11, 5, 16}, 0.25f, 0.0f);
}

TEST(AttentionF32, GqaRatios) {
  CheckAttention<4, 4, 16, 24, 0>({4, 3}, 0.25f, 0.0f);  // 1:1
  CheckAttention<4, 2, 16, 24, 0>({4, 3}, 0.25f, 0.0f);  // 2:1
  CheckAttention<8, 2, 16, 24, 0>({4, 3}, 0.25f, 0.0f);  // 4:1
}

TEST(AttentionF32, SlidingWindowOverTheWholeSequence) {
  // A cache of every position (S = max_seq) with a window shorter than the sequence.
  CheckAttention<4, 2, 16, 64, 8>({40, 1}, 0.25f, 0.0f);
  CheckAttention<4, 2, 16, 64, 8>({20}, 0.25f, 0.0f);
  CheckAttention<4, 1, 16, 64, 5>({30, 12}, 0.25f, 0.0f);
  CheckAttention<4, 2, 16, 64, 1>({3, 4}, 0.25f, 0.0f);  // window 1: each query sees only itself
}

TEST(AttentionF32, RingOfTheWindow) {
  // S = Window: position t in slot t % S. Token by token past the window; one call of more rows than the window;
  // calls that straddle the ring's end and the window boundary; a call of exactly the window.
  CheckAttention<4, 2, 16, 8, 8>(std::vector<int32_t>(30, 1), 0.25f, 0.0f);
  CheckAttention<4, 2, 16, 8, 8>({24}, 0.25f, 0.0f);
  CheckAttention<4, 2, 16, 8, 8>({5, 5, 5, 5, 4}, 0.25f, 0.0f);
  CheckAttention<4, 2, 16, 8, 8>({3, 13, 8, 1, 7, 2}, 0.25f, 0.0f);
  CheckAttention<4, 1, 16, 5, 5>({2, 9, 1, 1, 6}, 0.25f, 0.0f);
  CheckAttention<4, 2, 16, 1, 1>({3, 1, 4}, 0.25f, 0.0f);  // a ring of one position
}

TEST(AttentionF32, RingLongerThanTheWindow) {
  // The contract needs S >= Window: a longer ring keeps positions no query sees.
  CheckAttention<4, 2, 16, 11, 8>({5, 5, 5, 5, 4}, 0.25f, 0.0f);
}

TEST(AttentionF32, Softcap) {
  CheckAttention<4, 2, 32, 48, 0>({2, 6}, 1.0f, 2.0f);  // scores ≫ cap: capping is active
  CheckAttention<4, 2, 32, 48, 8>({20, 6}, 0.5f, 50.0f);
  CheckAttention<4, 2, 32, 8, 8>({20, 6}, 0.5f, 50.0f);  // ring
  CheckAttention<4, 2, 32, 48, 8>({20, 6}, 0.5f, 0.0f);
}

TEST(AttentionF32, HalfPrecisionCache) {
  CheckAttention<8, 4, 8, 16, 0, false, uint16_t>({9, 1}, 0.35355339f, 0.0f);          // decode
  CheckAttention<4, 2, 16, 64, 8, false, uint16_t>({20}, 0.25f, 0.0f);                 // prefill, window
  CheckAttention<4, 2, 16, 8, 8, false, uint16_t>({5, 5, 5, 1, 1, 7}, 0.25f, 0.0f);    // ring
  CheckAttention<4, 2, 32, 48, 0, false, uint16_t>({2, 6}, 1.0f, 2.0f);                // softcap
  CheckAttention<8, 4, 8, 16, 0, true, uint16_t>({3, 4}, 0.0f, 0.0f);                  // llama2.c's division
}

TEST(KvStoreF32, HalfCacheRoundsToNearestEven) {
  // Ties, subnormals, the largest half, overflow to inf, signed zeros: each equals _Float16's rounding.
  const std::vector<float> k = {1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f, 0x1p-20f, -0x1p-24f, 0x1.8p-25f, 65504.0f,
                                65519.0f, 65520.0f, 1e9f, -0.0f, 0.0f, 3.14159265f, -2.71828f, 0x1p-14f,
                                0x1.ffcp-15f, 1e-30f};
  std::vector<float> v(k.rbegin(), k.rend());
  std::vector<uint16_t> kc(16, 0xFFFF), vc(16, 0xFFFF);
  kv_store_f32<1, 16, 1>(1, 0, k.data(), v.data(), kc.data(), vc.data());
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(kc[i], ToCache(k[i], uint16_t{})) << "k " << k[i];
    EXPECT_EQ(vc[i], ToCache(v[i], uint16_t{})) << "v " << v[i];
  }
}

TEST(KvStoreF32, RingKeepsTheLastPositions) {
  // Position t in slot t % S; of a store of more rows than slots only the last S land; slots a store does not reach
  // keep what they held.
  constexpr int KVH = 2, HD = 4, S = 5;
  const auto k = RandomFloats(9 * KVH * HD, 70), v = RandomFloats(9 * KVH * HD, 71);
  std::vector<float> kc(S * KVH * HD, -7.0f), vc(kc);
  kv_store_f32<KVH, HD, S>(2, 3, k.data(), v.data(), kc.data(), vc.data());  // positions 3, 4: slots 3, 4
  kv_store_f32<KVH, HD, S>(9, 12, k.data(), v.data(), kc.data(), vc.data());  // positions 12..20: 16..20 land
  for (int g = 0; g < KVH; ++g)
    for (int slot = 0; slot < S; ++slot) {
      const int r = (slot - 16 % S + S) % S + 4;  // position 16 + (slot - 16) mod 5, row 12 less
      for (int i = 0; i < HD; ++i) {
        ASSERT_EQ(kc[(g * S + slot) * HD + i], k[(r * KVH + g) * HD + i]) << "slot " << slot;
        ASSERT_EQ(vc[(g * S + slot) * HD + i], v[(r * KVH + g) * HD + i]) << "slot " << slot;
      }
    }
  std::vector<float> kd(S * KVH * HD, -7.0f), vd(kd);
  kv_store_f32<KVH, HD, S>(2, 4, k.data(), v.data(), kd.data(), vd.data());  // positions 4, 5: slots 4, 0
  for (int g = 0; g < KVH; ++g)
    for (int slot = 0; slot < S; ++slot)
      for (int i = 0; i < HD; ++i) {
        const float want = slot == 4 ? k[(0 * KVH + g) * HD + i] : slot == 0 ? k[(1 * KVH + g) * HD + i] : -7.0f;
        ASSERT_EQ(kd[(g * S + slot) * HD + i], want) << "slot " << slot;
      }
}

TEST(AttentionF32, DivideBySqrtHdMatchesScaleWithinRounding) {
  CheckAttention<8, 4, 8, 16, 0, true>({3, 4}, 0.0f, 0.0f);  // scale ignored in llama2.c form
  CheckAttention<8, 2, 16, 16, 0, true>({2}, 0.0f, 0.0f);
}

}  // namespace
}  // namespace saguaro::kernels::test
