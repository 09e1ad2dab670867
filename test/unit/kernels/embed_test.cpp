// embed_f32 and embed_f16 against a direct lookup; tables stored in three-row panels (dense_layout.h) read the same.
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

/// Checks embed_f16<D> for `rows` tokens of a binary16 table (values of `kind`, vocab 37) with the given scale:
/// each output is the float product of the compiler's conversion of the half and the scale, bit for bit (the
/// product of two floats is exact in double, so rounding it once to float is the float multiplication).
template <int D>
void CheckEmbedF16(int32_t rows, float scale, HalfKind kind) {
  SCOPED_TRACE(testing::Message() << "D " << D << " rows " << rows << " scale " << scale << " kind "
                                  << static_cast<int>(kind));
  constexpr int kVocab = 37;
  const auto table = RandomHalves(kVocab * D, 2 + D, kind);
  std::vector<int32_t> tok(rows);
  for (int32_t r = 0; r < rows; ++r) tok[r] = (r * 11 + 5) % kVocab;
  std::vector<float> out(rows * D);
  embed_f16<D>(rows, tok.data(), table.data(), scale, out.data());
  size_t bad = 0;
  for (int32_t r = 0; r < rows; ++r)
    for (int i = 0; i < D; ++i) {
      const uint16_t h = table[tok[r] * D + i];
      const float want = static_cast<float>(CompilerHalfValue(h) * scale);
      const float got = out[r * D + i];
      if (std::memcmp(&got, &want, sizeof got) != 0 && bad++ < 5) {
        ADD_FAILURE() << "row " << r << " i " << i << " half 0x" << std::hex << h << std::dec << ": got " << got
                      << " want " << want;
      }
    }
  EXPECT_EQ(bad, 0u);
}

TEST(EmbedF16, ExactShapes) {
  for (HalfKind kind : {HalfKind::kNormal, HalfKind::kSubnormal, HalfKind::kLarge, HalfKind::kSpecial}) {
    CheckEmbedF16<1>(1, 1.0f, kind);
    CheckEmbedF16<13>(4, 1.0f, kind);               // plain copy of the converted halves, signed zeros included
    CheckEmbedF16<64>(5, 8.0f, kind);               // sqrt(64), Gemma-style
    CheckEmbedF16<48>(3, std::sqrt(48.0f), kind);   // non-integer scale
  }
}

/// A table of 37 rows (12 panels and one row-major row) packed in dense::kPanel3 gives every token's row exactly
/// as the row-major table does, for both element types.
TEST(Embed, PanelLayoutReadsTheSameRows) {
  constexpr int kD = 24, kVocab = 37;
  const auto f32 = RandomFloats(kVocab * kD, 7);
  const auto f16 = RandomHalves(kVocab * kD, 8, HalfKind::kNormal);
  std::vector<float> f32_packed(f32.size());
  std::vector<uint16_t> f16_packed(f16.size());
  dense::pack(dense::kPanel3, kVocab, kD, sizeof(float), f32.data(), f32_packed.data());
  dense::pack(dense::kPanel3, kVocab, kD, sizeof(uint16_t), f16.data(), f16_packed.data());
  ASSERT_NE(0, std::memcmp(f32.data(), f32_packed.data(), f32.size() * sizeof(float))) << "pack moved nothing";
  std::vector<int32_t> tok(kVocab);
  for (int32_t t = 0; t < kVocab; ++t) tok[t] = (t * 5 + 3) % kVocab;
  std::vector<float> want(kVocab * kD), got(want.size());
  embed_f32<kD>(kVocab, tok.data(), f32.data(), 2.0f, want.data());
  embed_f32<kD, dense::kPanel3, kVocab>(kVocab, tok.data(), f32_packed.data(), 2.0f, got.data());
  EXPECT_EQ(0, std::memcmp(want.data(), got.data(), want.size() * sizeof(float)));
  embed_f16<kD>(kVocab, tok.data(), f16.data(), 1.0f, want.data());
  embed_f16<kD, dense::kPanel3, kVocab>(kVocab, tok.data(), f16_packed.data(), 1.0f, got.data());
  EXPECT_EQ(0, std::memcmp(want.data(), got.data(), want.size() * sizeof(float)));
}

/// The panel offsets: rows 3p..3p+2 interleave in chunks of 8 within the bytes those rows occupy row-major; the
/// rows after the last whole panel stay row-major; pack is a permutation.
TEST(DenseLayout, PanelOffsets) {
  constexpr int64_t kN = 7, kK = 16;
  EXPECT_EQ(dense::offset(dense::kPanel3, kN, kK, 0, 0), 0);
  EXPECT_EQ(dense::offset(dense::kPanel3, kN, kK, 1, 0), 8);
  EXPECT_EQ(dense::offset(dense::kPanel3, kN, kK, 2, 7), 23);
  EXPECT_EQ(dense::offset(dense::kPanel3, kN, kK, 0, 8), 24);
  EXPECT_EQ(dense::offset(dense::kPanel3, kN, kK, 2, 15), 47);
  EXPECT_EQ(dense::offset(dense::kPanel3, kN, kK, 3, 0), 48);   // second panel
  EXPECT_EQ(dense::offset(dense::kPanel3, kN, kK, 6, 5), 6 * kK + 5);  // row-major tail row
  EXPECT_EQ(dense::offset(dense::kRowMajor, kN, kK, 4, 9), 4 * kK + 9);
  std::vector<int> seen(kN * kK, 0);
  for (int64_t n = 0; n < kN; ++n)
    for (int64_t k = 0; k < kK; ++k) ++seen[dense::offset(dense::kPanel3, kN, kK, n, k)];
  for (int s : seen) EXPECT_EQ(s, 1);
  EXPECT_TRUE(dense::panel_fits(8));
  EXPECT_FALSE(dense::panel_fits(12));
}

}  // namespace
}  // namespace saguaro::kernels::test
