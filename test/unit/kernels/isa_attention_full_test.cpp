// ISA attention_full_f32 against the generic one (within 1e-5 of the output scale, as isa_attention_test.cpp):
// row counts across the 64-position softmax blocks and the blocks of query rows, GQA ratios 1-16, Gemma 4's vision
// shape, head sizes the ISA kernel hands to the generic one (AVX2: not a multiple of 8; NEON: not a multiple of 4)
// or splits into an odd number of vectors (NEON); and the thread split, bit for bit.
#include <limits>

#include "isa_test_util.h"

namespace saguaro::kernels::test {
namespace {

/// Both kernels on `rows` random rows with `scale`; the outputs start as NaN.
template <int H, int KVH, int HD>
void CheckFullAttention(int32_t rows, float scale) {
  SCOPED_TRACE(testing::Message() << "H " << H << " KVH " << KVH << " HD " << HD << " rows " << rows);
  const auto q = RandomFloats(static_cast<size_t>(rows) * H * HD, 800 + rows + HD, -3.0f, 3.0f);
  const auto k = RandomFloats(static_cast<size_t>(rows) * KVH * HD, 801 + rows + HD);
  const auto v = RandomFloats(static_cast<size_t>(rows) * KVH * HD, 802 + rows + HD);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> want(q.size(), nan), got(q.size(), nan);
  generic::attention_full_f32<H, KVH, HD>(rows, q.data(), k.data(), v.data(), scale, want.data());
  isa::attention_full_f32<H, KVH, HD>(rows, q.data(), k.data(), v.data(), scale, got.data());
  ExpectNearGeneric(got.data(), want.data(), want.size());
}

TEST(IsaAttentionFull, RowsAcrossBlocks) {
  SAGUARO_REQUIRE_ISA();
  for (int32_t rows : {1, 2, 7, 8, 9, 63, 64, 65, 129, 200}) CheckFullAttention<2, 2, 16>(rows, 0.25f);
}

TEST(IsaAttentionFull, VisionShape) {
  SAGUARO_REQUIRE_ISA();
  CheckFullAttention<12, 12, 64>(99, 1.0f);  // Gemma 4 E2B's tower: 12 heads of 64, scale 1
  CheckFullAttention<4, 4, 72>(45, 1.0f);    // the large models' head size
}

TEST(IsaAttentionFull, GqaRatios) {
  SAGUARO_REQUIRE_ISA();
  CheckFullAttention<4, 2, 32>(21, 0.17677669f);   // 2:1: blocks of four rows
  CheckFullAttention<8, 2, 32>(21, 0.17677669f);   // 4:1
  CheckFullAttention<8, 1, 32>(21, 0.17677669f);   // 8:1: one row per block
  CheckFullAttention<16, 1, 32>(10, 0.17677669f);  // 16:1: more query heads than a block takes
  CheckFullAttention<6, 2, 32>(13, 0.17677669f);   // 3:1: blocks of two rows, six vectors
}

#if defined(SAGUARO_TEST_X86_AVX2)
TEST(IsaAttentionFull, HeadSizeNotMultipleOf8UsesGeneric) {
  SAGUARO_REQUIRE_ISA();
  CheckFullAttention<4, 2, 12>(11, 0.28867513f);
}
#elif defined(SAGUARO_TEST_ARM64_NEON)
TEST(IsaAttentionFull, HeadSizeOddVectorCount) {
  CheckFullAttention<4, 2, 12>(11, 0.28867513f);  // 3 vectors of 4 per head
  CheckFullAttention<6, 2, 20>(70, 0.2236068f);   // 5 vectors, 3:1
}

TEST(IsaAttentionFull, HeadSizeNotMultipleOf4UsesGeneric) {
  CheckFullAttention<4, 2, 6>(11, 0.40824829f);
}
#endif

TEST(IsaAttentionFull, ThreadSplitBitIdentical) {
  SAGUARO_REQUIRE_ISA();
  constexpr int H = 4, KVH = 4, HD = 32, rows = 75;
  const auto q = RandomFloats(rows * H * HD, 810, -3.0f, 3.0f);
  const auto k = RandomFloats(rows * KVH * HD, 811), v = RandomFloats(rows * KVH * HD, 812);
  ExpectThreadSplitBitIdentical(q.size(), [&](float* out, const Parallel* par) {
    isa::attention_full_f32<H, KVH, HD>(rows, q.data(), k.data(), v.data(), 0.2f, out, par);
  });
}

TEST(IsaAttentionFull, KernelsHeaderSelectsIsa) {
  EXPECT_EQ((&kernels::attention_full_f32<4, 2, 16>), (&isa::attention_full_f32<4, 2, 16>));
}

}  // namespace
}  // namespace saguaro::kernels::test
