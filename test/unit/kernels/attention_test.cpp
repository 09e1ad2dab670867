// kv_store_f32 and attention_f32 against double-precision causal GQA attention.
#include "saguaro/kernels/kernels.h"
#include "test_util.h"

#include <cstring>
#include <limits>

namespace saguaro::kernels::test {
namespace {

struct AttnCase {
  int32_t rows, pos0;
  float scale, softcap;
};

/// Causal (optionally windowed, soft-capped) GQA attention in double over head-major caches kc/vc[kvh][S][hd].
std::vector<double> RefAttention(const AttnCase& c, int heads, int kvh, int hd, int seq, int window, bool div_sqrt,
                                 const std::vector<float>& q, const std::vector<double>& kc,
                                 const std::vector<double>& vc) {
  std::vector<double> out(static_cast<size_t>(c.rows) * heads * hd, 0.0);
  for (int r = 0; r < c.rows; ++r) {
    const int p = c.pos0 + r;
    const int t0 = window > 0 ? std::max(0, p - window + 1) : 0;
    for (int h = 0; h < heads; ++h) {
      const int g = h / (heads / kvh);
      std::vector<double> s;
      for (int t = t0; t <= p; ++t) {
        double dot = 0.0;
        for (int i = 0; i < hd; ++i)
          dot += static_cast<double>(q[(r * heads + h) * hd + i]) * kc[(static_cast<size_t>(g) * seq + t) * hd + i];
        double score = div_sqrt ? dot / std::sqrt(static_cast<double>(hd)) : dot * c.scale;
        if (c.softcap > 0) score = c.softcap * std::tanh(score / c.softcap);
        s.push_back(score);
      }
      const double mx = *std::max_element(s.begin(), s.end());
      double sum = 0.0;
      for (auto& v : s) sum += (v = std::exp(v - mx));
      for (int t = t0; t <= p; ++t)
        for (int i = 0; i < hd; ++i)
          out[(r * heads + h) * hd + i] += s[t - t0] / sum * vc[(static_cast<size_t>(g) * seq + t) * hd + i];
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

/// Stores random K/V for the case's rows via kv_store_f32 into caches of element type KV, runs attention_f32,
/// compares with RefAttention over the cache's values. Cache slots the queries must not read (future positions,
/// positions before every window) hold NaN.
template <int H, int KVH, int HD, int S, int Window, bool DivSqrt = false, class KV = float>
void CheckAttention(const AttnCase& c) {
  constexpr int kKvd = KVH * HD;
  const int32_t end = c.pos0 + c.rows;
  ASSERT_LE(end, S);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<KV> kc(S * kKvd), vc(S * kKvd);
  const std::vector<float> k0 = RandomFloats(S * kKvd, 200 + H + KVH + HD);
  const std::vector<float> v0 = RandomFloats(S * kKvd, 300 + H + KVH + HD);
  for (size_t i = 0; i < kc.size(); ++i) kc[i] = ToCache(k0[i], KV{}), vc[i] = ToCache(v0[i], KV{});
  const int32_t first_visible = Window > 0 ? std::max(0, c.pos0 - Window + 1) : 0;
  for (int32_t t = 0; t < S; ++t) {
    if (t >= first_visible && t < end) continue;
    for (int g = 0; g < KVH; ++g) {
      std::fill_n(kc.begin() + (g * S + t) * HD, HD, ToCache(nan, KV{}));
      std::fill_n(vc.begin() + (g * S + t) * HD, HD, ToCache(nan, KV{}));
    }
  }
  // The newest rows arrive through kv_store_f32, as generated code does it: row r, KV head g lands at
  // [g][pos0 + r] of the head-major caches (rounded to nearest even in an f16 cache).
  const auto k_new = RandomFloats(c.rows * kKvd, 400 + c.rows);
  const auto v_new = RandomFloats(c.rows * kKvd, 500 + c.rows);
  kv_store_f32<KVH, HD, S>(c.rows, c.pos0, k_new.data(), v_new.data(), kc.data(), vc.data());
  for (int r = 0; r < c.rows; ++r)
    for (int g = 0; g < KVH; ++g)
      for (int i = 0; i < HD; ++i) {
        ASSERT_EQ(kc[(g * S + c.pos0 + r) * HD + i], ToCache(k_new[(r * KVH + g) * HD + i], KV{}));
        ASSERT_EQ(vc[(g * S + c.pos0 + r) * HD + i], ToCache(v_new[(r * KVH + g) * HD + i], KV{}));
      }
  const auto q = RandomFloats(c.rows * H * HD, 600 + c.pos0, -3.0f, 3.0f);
  std::vector<float> scratch(S, nan), out(c.rows * H * HD, nan);
  attention_f32<H, KVH, HD, S, Window, DivSqrt>(c.rows, c.pos0, q.data(), kc.data(), vc.data(), c.scale,
                                                 c.softcap, scratch.data(), out.data());
  std::vector<double> kd(kc.size()), vd(vc.size());
  for (size_t i = 0; i < kc.size(); ++i) kd[i] = FromCache(kc[i]), vd[i] = FromCache(vc[i]);
  ExpectClose(out, RefAttention(c, H, KVH, HD, S, Window, DivSqrt, q, kd, vd));
}

TEST(AttentionF32, SingleRowDecode) {
  CheckAttention<8, 4, 8, 16, 0>({1, 0, 0.35355339f, 0.0f});
  CheckAttention<8, 4, 8, 16, 0>({1, 9, 0.35355339f, 0.0f});
}

TEST(AttentionF32, PrefillRowsFromZeroAndOffset) {
  CheckAttention<4, 4, 16, 32, 0>({7, 0, 0.25f, 0.0f});
  CheckAttention<4, 4, 16, 32, 0>({5, 11, 0.25f, 0.0f});
}

TEST(AttentionF32, GqaRatios) {
  CheckAttention<4, 4, 16, 24, 0>({3, 4, 0.25f, 0.0f});  // 1:1
  CheckAttention<4, 2, 16, 24, 0>({3, 4, 0.25f, 0.0f});  // 2:1
  CheckAttention<8, 2, 16, 24, 0>({3, 4, 0.25f, 0.0f});  // 4:1
}

TEST(AttentionF32, SlidingWindowShorterThanSequence) {
  CheckAttention<4, 2, 16, 64, 8>({1, 40, 0.25f, 0.0f});
  CheckAttention<4, 2, 16, 64, 8>({20, 0, 0.25f, 0.0f});
  CheckAttention<4, 1, 16, 64, 5>({12, 30, 0.25f, 0.0f});
  CheckAttention<4, 2, 16, 64, 1>({4, 3, 0.25f, 0.0f});  // window 1: each query sees only itself
}

TEST(AttentionF32, Softcap) {
  CheckAttention<4, 2, 32, 48, 0>({6, 2, 1.0f, 2.0f});  // scores ≫ cap: capping is active
  CheckAttention<4, 2, 32, 48, 8>({6, 20, 0.5f, 50.0f});
  CheckAttention<4, 2, 32, 48, 8>({6, 20, 0.5f, 0.0f});
}

TEST(AttentionF32, HalfPrecisionCache) {
  CheckAttention<8, 4, 8, 16, 0, false, uint16_t>({1, 9, 0.35355339f, 0.0f});  // decode
  CheckAttention<4, 2, 16, 64, 8, false, uint16_t>({20, 0, 0.25f, 0.0f});      // prefill, window
  CheckAttention<4, 2, 32, 48, 0, false, uint16_t>({6, 2, 1.0f, 2.0f});        // softcap
  CheckAttention<8, 4, 8, 16, 0, true, uint16_t>({4, 3, 0.0f, 0.0f});          // llama2.c's division
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

TEST(AttentionF32, DivideBySqrtHdMatchesScaleWithinRounding) {
  CheckAttention<8, 4, 8, 16, 0, true>({4, 3, 0.0f, 0.0f});  // scale ignored in llama2.c form
  CheckAttention<8, 2, 16, 16, 0, true>({2, 0, 0.0f, 0.0f});
}

}  // namespace
}  // namespace saguaro::kernels::test
