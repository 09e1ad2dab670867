// add_f32, softcap_f32, scale_f32, column_slice_f32, copy_rows_f32, inject_rows_f32 and the encoders' clamp_f32,
// shift_scale_f32 and standardize_f32 against double-precision formulas and plain copies.
#include "saguaro/kernels/kernels.h"
#include "test_util.h"

#include <limits>

namespace saguaro::kernels::test {
namespace {

TEST(AddF32, Rows) {
  auto acc = RandomFloats(3 * 40, 150);
  const auto x = RandomFloats(3 * 40, 151);
  std::vector<double> want(acc.size());
  for (size_t i = 0; i < acc.size(); ++i) want[i] = static_cast<double>(acc[i]) + x[i];
  add_f32<40>(3, acc.data(), x.data());
  ExpectClose(acc, want);
}

/// Checks softcap_f32<N> with cap on values spanning ±4·cap.
template <int N>
void CheckSoftcap(int32_t rows, float cap) {
  auto x = RandomFloats(rows * N, 160 + N, -4.0f * cap, 4.0f * cap);
  std::vector<double> want(x.size());
  for (size_t i = 0; i < x.size(); ++i) want[i] = cap * std::tanh(x[i] / static_cast<double>(cap));
  softcap_f32<N>(rows, x.data(), cap);
  ExpectClose(x, want);
}

TEST(SoftcapF32, Caps) {
  CheckSoftcap<1>(1, 30.0f);
  CheckSoftcap<512>(2, 30.0f);
  CheckSoftcap<64>(3, 50.0f);
}

TEST(ScaleF32, ByConstantAndByOneElementWeight) {
  const auto x = RandomFloats(3 * 24, 170);
  auto by_factor = x, by_weight = x;
  const float w = 1.375f;
  scale_f32<24>(3, by_factor.data(), 0.70710678f);
  scale_f32<24>(3, by_weight.data(), 1.0f, &w);
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(by_factor[i], x[i] * 0.70710678f);
    EXPECT_EQ(by_weight[i], x[i] * w);  // factor 1: exactly the weight's product
  }
}

TEST(ColumnSliceF32, CopiesEachRowsColumns) {
  const auto x = RandomFloats(3 * 40, 171);
  std::vector<float> out(3 * 8, -1.0f);
  column_slice_f32<40, 16, 8>(3, x.data(), out.data());
  for (int r = 0; r < 3; ++r)
    for (int j = 0; j < 8; ++j) EXPECT_EQ(out[r * 8 + j], x[r * 40 + 16 + j]) << "row " << r << " column " << j;
}

TEST(CopyRowsF32, CopiesEveryRow) {
  const auto x = RandomFloats(3 * 24, 172);
  std::vector<float> out(4 * 24, -1.0f);
  copy_rows_f32<24>(3, x.data(), out.data());
  for (int i = 0; i < 3 * 24; ++i) EXPECT_EQ(out[i], x[i]) << "element " << i;
  for (int i = 3 * 24; i < 4 * 24; ++i) EXPECT_EQ(out[i], -1.0f) << "element " << i << " is past the rows";
}

TEST(InjectRowsF32, ReplacesOnlyMaskedRows) {
  const auto before = RandomFloats(4 * 16, 173), embeds = RandomFloats(4 * 16, 174);
  const uint8_t mask[4] = {0, 1, 0, 1};
  auto x = before;
  inject_rows_f32<16>(4, embeds.data(), mask, x.data());
  for (int r = 0; r < 4; ++r)
    for (int j = 0; j < 16; ++j)
      EXPECT_EQ(x[r * 16 + j], (mask[r] ? embeds : before)[r * 16 + j]) << "row " << r << " column " << j;
  auto untouched = before;
  inject_rows_f32<16>(4, nullptr, nullptr, untouched.data());
  EXPECT_EQ(untouched, before);
}

/// torch.clamp(x, lo, hi) in double: NaN stays NaN, else min(max(x, lo), hi).
double RefClamp(double x, double lo, double hi) { return std::isnan(x) ? x : std::min(std::max(x, lo), hi); }

/// Checks clamp_f32<N> with bounds lo, hi on values spanning [-3, 3), a NaN and both infinities included.
template <int N>
void CheckClamp(int32_t rows, float lo, float hi) {
  SCOPED_TRACE(testing::Message() << "lo " << lo << " hi " << hi);
  auto x = RandomFloats(rows * N, 180 + N, -3.0f, 3.0f);
  x[0] = std::numeric_limits<float>::quiet_NaN();
  x[1] = std::numeric_limits<float>::infinity();
  x[2] = -std::numeric_limits<float>::infinity();
  const auto in = x;
  clamp_f32<N>(rows, x.data(), &lo, &hi);
  for (size_t i = 0; i < x.size(); ++i) {
    const double want = RefClamp(in[i], lo, hi);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(x[i])) << "index " << i;
    } else {
      EXPECT_EQ(x[i], want) << "index " << i << " x " << in[i];
    }
  }
}

TEST(ClampF32, StoredBounds) {
  const float inf = std::numeric_limits<float>::infinity();
  CheckClamp<40>(3, -1.0f, 1.5f);
  CheckClamp<7>(2, -inf, 0.25f);   // only an upper bound
  CheckClamp<7>(2, -0.5f, inf);    // only a lower bound
  CheckClamp<7>(2, -inf, inf);     // the bounds of an unclipped linear: nothing changes
  CheckClamp<7>(2, 1.0f, -1.0f);   // lo > hi: hi, as torch.clamp
}

TEST(ShiftScaleF32, PatchPixelsToPlusMinusOne) {
  auto x = RandomFloats(5 * 48, 190, 0.0f, 1.0f);
  x[0] = 0.0f, x[1] = 1.0f, x[2] = 0.5f;
  std::vector<double> want(x.size());
  for (size_t i = 0; i < x.size(); ++i) want[i] = 2.0 * (x[i] - 0.5);
  shift_scale_f32<48>(5, x.data(), 0.5f, 2.0f);
  ExpectClose(x, want);
  EXPECT_EQ(x[0], -1.0f);
  EXPECT_EQ(x[1], 1.0f);
  EXPECT_EQ(x[2], 0.0f);
  auto y = RandomFloats(2 * 9, 191, -4.0f, 4.0f);
  std::vector<double> want_y(y.size());
  for (size_t i = 0; i < y.size(); ++i) want_y[i] = (y[i] - static_cast<double>(-1.25f)) * static_cast<double>(0.3f);
  shift_scale_f32<9>(2, y.data(), -1.25f, 0.3f);
  ExpectClose(y, want_y);
}

TEST(StandardizeF32, PerColumnBiasAndScale) {
  constexpr int N = 24;
  auto x = RandomFloats(4 * N, 192, -30.0f, 30.0f);
  const auto bias = RandomFloats(N, 193, -2.0f, 2.0f), scale = RandomFloats(N, 194, 0.01f, 3.0f);
  std::vector<double> want(x.size());
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < N; ++c)
      want[r * N + c] = (static_cast<double>(x[r * N + c]) - bias[c]) * static_cast<double>(scale[c]);
  standardize_f32<N>(4, x.data(), bias.data(), scale.data());
  ExpectClose(x, want);
}

}  // namespace
}  // namespace saguaro::kernels::test
