// embed_f32 and embed_f16 against a direct lookup.
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

}  // namespace
}  // namespace saguaro::kernels::test
