// ISA attention_f32 against the generic one (within 1e-5 of the output scale): decode and prefill rows at
// several positions (across the 64-position softmax blocks), GQA ratios 1-8, sliding windows over full caches and
// over rings of the window (alone, and sequences of calls with kv_store_f32), soft-capping,
// llama2.c's score division, and head sizes the ISA kernel hands to the generic one (AVX2: not a multiple of 8;
// NEON: not a multiple of 4) or splits into an odd number of vectors (NEON); f32 and f16 caches. The ISA
// kv_store_f32 into an f16 cache gives the generic bytes.
#include <cmath>
#include <limits>

#include "isa_test_util.h"

namespace saguaro::kernels::test {
namespace {

struct Case {
  int32_t rows, pos0;
  float scale, softcap;
};

/// Float caches as the element type KV (float, or binary16 bits).
template <class KV>
std::vector<KV> AsCache(const std::vector<float>& x) {
  std::vector<KV> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) generic::kv_put(&out[i], x[i]);
  return out;
}

/// Both kernels over the same caches of S positions (elements KV) holding the positions before pos0 (slot t % S),
/// and the call's own random k/v rows; cache slots no query may read (future positions, positions before every
/// window) and the scratch hold NaN, so reading one fails the comparison.
template <int H, int KVH, int HD, int S, int Window, bool DivSqrt = false, class KV = float>
void CheckAttention(const Case& c) {
  SCOPED_TRACE(testing::Message() << "H " << H << " KVH " << KVH << " HD " << HD << " S " << S << " Window " << Window
                                  << " DivSqrt " << DivSqrt << " rows " << c.rows << " pos0 " << c.pos0 << " softcap "
                                  << c.softcap << " cache bytes " << sizeof(KV));
  constexpr int kKvd = KVH * HD;
  ASSERT_TRUE((Window > 0 && S >= Window) || c.pos0 + c.rows <= S);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> kc = RandomFloats(static_cast<size_t>(S) * kKvd, 200 + H + KVH + HD + c.pos0);
  std::vector<float> vc = RandomFloats(static_cast<size_t>(S) * kKvd, 300 + H + KVH + HD + c.pos0);
  const int32_t first_visible = Window > 0 ? std::max(0, c.pos0 - Window + 1) : 0;
  std::vector<bool> visible(S, false);
  for (int32_t t = first_visible; t < c.pos0; ++t) visible[t % S] = true;
  for (int32_t slot = 0; slot < S; ++slot) {
    if (visible[slot]) continue;
    for (int g = 0; g < KVH; ++g) {  // head-major caches, [KVH][S][HD]
      std::fill_n(kc.begin() + (g * S + slot) * HD, HD, nan);
      std::fill_n(vc.begin() + (g * S + slot) * HD, HD, nan);
    }
  }
  const std::vector<KV> kcache = AsCache<KV>(kc), vcache = AsCache<KV>(vc);
  const auto k = RandomFloats(static_cast<size_t>(c.rows) * kKvd, 400 + c.rows + c.pos0);
  const auto v = RandomFloats(static_cast<size_t>(c.rows) * kKvd, 500 + c.rows + c.pos0);
  const auto q = RandomFloats(static_cast<size_t>(c.rows) * H * HD, 600 + c.pos0 + c.rows, -3.0f, 3.0f);
  std::vector<float> scratch(attention_scratch_floats(KVH, HD, S, c.rows), nan), want(q.size(), nan),
      got(q.size(), nan);
  generic::attention_f32<H, KVH, HD, S, Window, DivSqrt>(c.rows, c.pos0, q.data(), k.data(), v.data(), kcache.data(),
                                                         vcache.data(), c.scale, c.softcap, scratch.data(),
                                                         want.data());
  std::fill(scratch.begin(), scratch.end(), nan);
  isa::attention_f32<H, KVH, HD, S, Window, DivSqrt>(c.rows, c.pos0, q.data(), k.data(), v.data(), kcache.data(),
                                                     vcache.data(), c.scale, c.softcap, scratch.data(), got.data());
  ExpectNearGeneric(got.data(), want.data(), want.size());
}

TEST(IsaAttention, DecodeAcrossSoftmaxBlocks) {
  SAGUARO_REQUIRE_ISA();
  for (int32_t pos : {0, 1, 7, 8, 9, 63, 64, 65, 127, 128, 200, 255}) {
    CheckAttention<8, 4, 8, 256, 0>({1, pos, 0.35355339f, 0.0f});
    CheckAttention<4, 2, 64, 256, 0>({1, pos, 0.125f, 0.0f});
  }
}

TEST(IsaAttention, PrefillRows) {
  SAGUARO_REQUIRE_ISA();
  for (int32_t rows = 1; rows <= 9; ++rows) {
    CheckAttention<4, 4, 16, 160, 0>({rows, 0, 0.25f, 0.0f});
    CheckAttention<4, 4, 16, 160, 0>({rows, 60, 0.25f, 0.0f});
    CheckAttention<2, 1, 128, 160, 0>({rows, 130, 0.088388f, 0.0f});
  }
}

TEST(IsaAttention, GqaRatios) {
  SAGUARO_REQUIRE_ISA();
  CheckAttention<4, 4, 32, 96, 0>({3, 70, 0.17677669f, 0.0f});  // 1:1
  CheckAttention<4, 2, 32, 96, 0>({3, 70, 0.17677669f, 0.0f});  // 2:1
  CheckAttention<8, 2, 32, 96, 0>({3, 70, 0.17677669f, 0.0f});  // 4:1
  CheckAttention<8, 1, 32, 96, 0>({3, 70, 0.17677669f, 0.0f});  // 8:1
  CheckAttention<16, 8, 64, 96, 0>({2, 80, 0.125f, 0.0f});      // Qwen3-0.6B-like
  CheckAttention<4, 1, 256, 96, 0>({2, 80, 0.0625f, 0.0f});     // Gemma-3-1B-like
}

TEST(IsaAttention, SlidingWindow) {
  SAGUARO_REQUIRE_ISA();
  CheckAttention<4, 2, 16, 200, 8>({1, 40, 0.25f, 0.0f});
  CheckAttention<4, 2, 16, 200, 8>({20, 0, 0.25f, 0.0f});
  CheckAttention<4, 1, 16, 200, 5>({12, 30, 0.25f, 0.0f});
  CheckAttention<4, 2, 16, 200, 1>({4, 3, 0.25f, 0.0f});           // each query sees only itself
  CheckAttention<4, 2, 32, 200, 70>({9, 120, 0.17677669f, 0.0f});  // window wider than a softmax block
  CheckAttention<4, 2, 32, 200, 64>({1, 199, 0.17677669f, 0.0f});
}

TEST(IsaAttention, Ring) {
  SAGUARO_REQUIRE_ISA();
  // S = Window: the cached positions before pos0 wrap around the ring's end, or not; the call's own rows more
  // than the window; a ring longer than a softmax block.
  for (int32_t pos : {0, 3, 8, 13, 16, 40})
    for (int32_t rows : {1, 5, 9, 20}) CheckAttention<4, 2, 16, 8, 8>({rows, pos, 0.25f, 0.0f});
  CheckAttention<4, 2, 32, 70, 70>({9, 120, 0.17677669f, 0.0f});
  CheckAttention<4, 2, 32, 70, 70>({1, 199, 0.17677669f, 0.0f});
  CheckAttention<16, 8, 64, 96, 96>({3, 250, 0.125f, 0.0f});
  CheckAttention<4, 2, 32, 70, 70, false, uint16_t>({9, 100, 0.17677669f, 0.0f});
  CheckAttention<4, 2, 12, 8, 8, false, uint16_t>({5, 13, 0.28867513f, 0.0f});  // odd head size
}

/// A sequence through both kernel sets' caches of S positions in calls of `chunks` rows (attention_f32, then
/// kv_store_f32, as generated code runs them): every position's output agrees, and the caches are the same bytes.
template <int H, int KVH, int HD, int S, int Window, class KV>
void CheckSequence(const std::vector<int32_t>& chunks) {
  SCOPED_TRACE(testing::Message() << "HD " << HD << " S " << S << " Window " << Window << " cache bytes "
                                  << sizeof(KV));
  constexpr int kKvd = KVH * HD;
  int32_t n = 0;
  for (int32_t rows : chunks) n += rows;
  const auto k = RandomFloats(static_cast<size_t>(n) * kKvd, 31), v = RandomFloats(static_cast<size_t>(n) * kKvd, 32);
  const auto q = RandomFloats(static_cast<size_t>(n) * H * HD, 33, -3.0f, 3.0f);
  std::vector<KV> kw(S * kKvd), vw(kw), kg(kw), vg(kw);
  std::vector<float> want(q.size()), got(q.size());
  int32_t pos0 = 0;
  for (int32_t rows : chunks) {
    std::vector<float> scratch(attention_scratch_floats(KVH, HD, S, rows));
    const int64_t at = static_cast<int64_t>(pos0) * kKvd, qat = static_cast<int64_t>(pos0) * H * HD;
    generic::attention_f32<H, KVH, HD, S, Window>(rows, pos0, q.data() + qat, k.data() + at, v.data() + at, kw.data(),
                                                  vw.data(), 0.25f, 0.0f, scratch.data(), want.data() + qat);
    generic::kv_store_f32<KVH, HD, S>(rows, pos0, k.data() + at, v.data() + at, kw.data(), vw.data());
    isa::attention_f32<H, KVH, HD, S, Window>(rows, pos0, q.data() + qat, k.data() + at, v.data() + at, kg.data(),
                                              vg.data(), 0.25f, 0.0f, scratch.data(), got.data() + qat);
    isa::kv_store_f32<KVH, HD, S>(rows, pos0, k.data() + at, v.data() + at, kg.data(), vg.data());
    pos0 += rows;
  }
  ExpectNearGeneric(got.data(), want.data(), want.size());
  EXPECT_TRUE(kg == kw && vg == vw);
}

TEST(IsaAttention, RingSequences) {
  SAGUARO_REQUIRE_ISA();
  CheckSequence<4, 2, 16, 8, 8, float>(std::vector<int32_t>(30, 1));  // token by token past the window
  CheckSequence<4, 2, 16, 8, 8, float>({5, 5, 5, 5, 4});             // calls across the window boundary
  CheckSequence<4, 2, 16, 8, 8, uint16_t>({24, 3, 1, 1});             // a call of more rows than the window
  CheckSequence<8, 1, 32, 80, 80, uint16_t>({64, 64, 7, 1, 1});      // a ring longer than a softmax block
}

TEST(IsaAttention, Softcap) {
  SAGUARO_REQUIRE_ISA();
  CheckAttention<4, 2, 32, 96, 0>({6, 2, 1.0f, 2.0f});  // scores ≫ cap: capping is active
  CheckAttention<4, 2, 32, 96, 8>({6, 20, 0.5f, 50.0f});
  CheckAttention<4, 2, 32, 96, 0>({6, 80, 0.5f, 50.0f});
}

TEST(IsaAttention, DivideBySqrtHd) {
  SAGUARO_REQUIRE_ISA();
  CheckAttention<8, 4, 8, 96, 0, true>({4, 3, 0.0f, 0.0f});
  CheckAttention<8, 4, 8, 96, 0, true>({5, 70, 0.0f, 0.0f});
  CheckAttention<8, 2, 16, 96, 0, true>({2, 0, 0.0f, 0.0f});
}

TEST(IsaAttention, HalfPrecisionCache) {
  SAGUARO_REQUIRE_ISA();
  for (int32_t pos : {0, 63, 64, 130, 255})
    CheckAttention<16, 8, 64, 256, 0, false, uint16_t>({1, pos, 0.125f, 0.0f});  // decode across blocks
  CheckAttention<4, 2, 32, 200, 70, false, uint16_t>({9, 120, 0.17677669f, 0.0f});  // prefill, window
  CheckAttention<4, 1, 256, 96, 0, false, uint16_t>({2, 80, 0.0625f, 0.0f});        // Gemma-3-1B-like
  CheckAttention<4, 2, 32, 96, 8, false, uint16_t>({6, 20, 0.5f, 50.0f});           // softcap
  CheckAttention<8, 4, 8, 96, 0, true, uint16_t>({5, 70, 0.0f, 0.0f});              // llama2.c's division
  CheckAttention<4, 2, 12, 32, 0, false, uint16_t>({3, 5, 0.28867513f, 0.0f});      // odd head size
}

// kv_store_f32 into an f16 cache gives the generic kernel's bytes (round to nearest even): random values over
// many magnitudes, ties, subnormals, the largest half, overflow and signed zeros.
template <int KVH, int HD>
void CheckHalfStore(int32_t rows, int32_t pos0) {
  constexpr int S = 64;
  std::vector<float> k = RandomFloats(static_cast<size_t>(rows) * KVH * HD, 21 + HD, -2.0f, 2.0f);
  std::vector<float> v = RandomFloats(k.size(), 22 + HD, -2.0f, 2.0f);
  const float special[] = {1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f, 0x1p-20f, -0x1p-24f, 0x1.8p-25f, 65504.0f,
                           65519.0f, 65520.0f, -1e9f, -0.0f, 0.0f, 0x1.ffcp-15f, 1e-30f};
  for (size_t i = 0; i < k.size(); ++i) {
    const float scale = std::ldexp(1.0f, static_cast<int>(i % 40) - 26);  // 2^-26 … 2^13
    k[i] = i % 7 == 3 ? special[(i / 7) % 13] : k[i] * scale;
    v[i] = v[i] * scale;
  }
  std::vector<uint16_t> want_k(S * KVH * HD, 0x5555), want_v(want_k), got_k(want_k), got_v(want_k);
  generic::kv_store_f32<KVH, HD, S>(rows, pos0, k.data(), v.data(), want_k.data(), want_v.data());
  isa::kv_store_f32<KVH, HD, S>(rows, pos0, k.data(), v.data(), got_k.data(), got_v.data());
  EXPECT_EQ(got_k, want_k);
  EXPECT_EQ(got_v, want_v);
}

TEST(IsaKvStore, HalfCacheBitIdentical) {
  SAGUARO_REQUIRE_ISA();
  CheckHalfStore<8, 128>(1, 40);
  CheckHalfStore<2, 64>(9, 3);
  CheckHalfStore<1, 12>(5, 0);  // head size the vector store does not cover
}

#if defined(SAGUARO_TEST_X86_AVX2)
TEST(IsaAttention, HeadSizeNotMultipleOf8UsesGeneric) {
  SAGUARO_REQUIRE_ISA();
  CheckAttention<4, 2, 12, 32, 0>({3, 5, 0.28867513f, 0.0f});
}
#elif defined(SAGUARO_TEST_ARM64_NEON)
TEST(IsaAttention, HeadSizeOddVectorCount) {
  CheckAttention<4, 2, 12, 32, 0>({3, 5, 0.28867513f, 0.0f});  // 3 vectors of 4 per head
  CheckAttention<6, 2, 20, 80, 0>({4, 66, 0.2236068f, 0.0f});   // 5 vectors, 3:1
}

TEST(IsaAttention, HeadSizeNotMultipleOf4UsesGeneric) {
  CheckAttention<4, 2, 6, 32, 0>({3, 5, 0.40824829f, 0.0f});
}
#endif

// The (row, KV head) pairs split over 2, 3 and 5 threads (ReversedPool, test_util.h) give the single-threaded
// result bit for bit.
template <int H, int KVH, int HD, int S, int Window>
void CheckThreadSplit(int32_t rows, int32_t pos0) {
  SCOPED_TRACE(testing::Message() << "H " << H << " KVH " << KVH << " HD " << HD << " rows " << rows);
  const auto kc = RandomFloats(static_cast<size_t>(S) * KVH * HD, 11);
  const auto vc = RandomFloats(static_cast<size_t>(S) * KVH * HD, 12);
  const auto q = RandomFloats(static_cast<size_t>(rows) * H * HD, 13, -3.0f, 3.0f);
  const auto k = RandomFloats(static_cast<size_t>(rows) * KVH * HD, 14);
  const auto v = RandomFloats(static_cast<size_t>(rows) * KVH * HD, 15);
  std::vector<float> scratch(attention_scratch_floats(KVH, HD, S, rows)), want(q.size());
  isa::attention_f32<H, KVH, HD, S, Window>(rows, pos0, q.data(), k.data(), v.data(), kc.data(), vc.data(), 0.1f,
                                            0.0f, scratch.data(), want.data());
  for (int32_t threads : {2, 3, 5}) {
    ReversedPool pool(threads);
    std::vector<float> got(q.size(), -1.0f);
    isa::attention_f32<H, KVH, HD, S, Window>(rows, pos0, q.data(), k.data(), v.data(), kc.data(), vc.data(), 0.1f,
                                              0.0f, scratch.data(), got.data(), &pool.par);
    ExpectBitEqual(got.data(), want.data(), want.size());
  }
}

TEST(IsaAttention, ThreadSplitBitIdentical) {
  SAGUARO_REQUIRE_ISA();
  CheckThreadSplit<16, 8, 64, 512, 0>(1, 300);  // decode: the KV heads are split
  CheckThreadSplit<8, 1, 64, 512, 0>(1, 300);   // one KV head: nothing to split
  CheckThreadSplit<4, 2, 32, 512, 16>(7, 200);  // prefill rows with a window
}

TEST(IsaAttention, KernelsHeaderSelectsIsa) {
  EXPECT_EQ((&kernels::attention_f32<4, 2, 16, 32, 0, false>), (&isa::attention_f32<4, 2, 16, 32, 0, false>));
  EXPECT_EQ((&kernels::kv_store_f32<2, 16, 32, uint16_t>), (&isa::kv_store_f32<2, 16, 32, uint16_t>));
}

}  // namespace
}  // namespace saguaro::kernels::test
