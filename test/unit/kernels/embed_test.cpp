// embed_f32 against a direct lookup.
#include "saguaro/kernels/kernels.h"
#include "test_util.h"

namespace saguaro::kernels::test {
namespace {

/// Checks embed_f32<D> for `rows` tokens from a vocab of 37 with the given scale.
template <int D>
void CheckEmbed(int32_t rows, float scale) {
  constexpr int kVocab = 37;
  const auto table = RandomFloats(kVocab * D, 1 + D);
  std::vector<int32_t> tok(rows);
  for (int32_t r = 0; r < rows; ++r) tok[r] = (r * 11 + 5) % kVocab;
  std::vector<float> out(rows * D);
  embed_f32<D>(rows, tok.data(), table.data(), scale, out.data());
  std::vector<double> want(rows * D);
  for (int32_t r = 0; r < rows; ++r)
    for (int i = 0; i < D; ++i) want[r * D + i] = static_cast<double>(table[tok[r] * D + i]) * scale;
  ExpectClose(out, want);
}

TEST(EmbedF32, PlainCopyIsExact) {
  constexpr int kD = 16;
  const auto table = RandomFloats(4 * kD, 3);
  const int32_t tok[2] = {3, 0};
  float out[2 * kD];
  embed_f32<kD>(2, tok, table.data(), 1.0f, out);
  for (int i = 0; i < kD; ++i) {
    EXPECT_EQ(out[i], table[3 * kD + i]);
    EXPECT_EQ(out[kD + i], table[i]);
  }
}

TEST(EmbedF32, ScaledShapes) {
  CheckEmbed<8>(1, 1.0f);
  CheckEmbed<64>(5, 8.0f);              // sqrt(64), Gemma-style
  CheckEmbed<48>(3, std::sqrt(48.0f));  // non-integer scale
}

}  // namespace
}  // namespace saguaro::kernels::test
