// rope_f32 against double-precision rotation (interleaved and rotate_half styles).
#include "saguaro/kernels/kernels.h"
#include "test_util.h"

namespace saguaro::kernels::test {
namespace {

/// RoPE in double: style 0 rotates pairs (2i, 2i+1), style 1 pairs (i, i+HD/2); position (pos0+r)/pos_scale.
std::vector<double> RefRope(const std::vector<float>& x, int rows, int heads, int hd, int style, int pos0,
                            double theta, double pos_scale) {
  std::vector<double> out(x.begin(), x.end());
  for (int r = 0; r < rows; ++r)
    for (int h = 0; h < heads; ++h)
      for (int i = 0; i < hd / 2; ++i) {
        // The frequency is computed in float by contract; only the rotation is checked in double here.
        const double freq = 1.0 / std::pow(theta, static_cast<double>(2 * i) / hd);
        const double angle = (pos0 + r) / pos_scale * freq;
        const int i0 = style == 0 ? 2 * i : i;
        const int i1 = style == 0 ? 2 * i + 1 : i + hd / 2;
        const size_t base = (static_cast<size_t>(r) * heads + h) * hd;
        const double v0 = x[base + i0], v1 = x[base + i1];
        out[base + i0] = v0 * std::cos(angle) - v1 * std::sin(angle);
        out[base + i1] = v0 * std::sin(angle) + v1 * std::cos(angle);
      }
  return out;
}

/// Checks rope_f32<H, HD, Style> on `rows` rows starting at pos0.
template <int H, int HD, int Style>
void CheckRope(int32_t rows, int32_t pos0, float theta, float pos_scale) {
  auto x = RandomFloats(rows * H * HD, 120 + H * HD + Style);
  const auto want = RefRope(x, rows, H, HD, Style, pos0, theta, pos_scale);
  rope_f32<H, HD, Style>(rows, pos0, x.data(), theta, pos_scale);
  // Angles reach ~pos in radians; float rounding of pos*freq costs ~|angle|·2^-24 absolute.
  const double rtol = 1e-5 * std::max(1.0, (pos0 + rows) / 8.0);
  ExpectClose(x, want, rtol);
}

TEST(RopeF32, InterleavedStyle0) {
  CheckRope<1, 8, 0>(1, 0, 10000.0f, 1.0f);
  CheckRope<8, 8, 0>(5, 0, 10000.0f, 1.0f);
  CheckRope<4, 16, 0>(3, 17, 10000.0f, 1.0f);
  CheckRope<2, 32, 0>(4, 40, 500000.0f, 8.0f);
}

TEST(RopeF32, HalvesStyle1) {
  CheckRope<1, 8, 1>(1, 0, 10000.0f, 1.0f);
  CheckRope<4, 16, 1>(6, 3, 1000000.0f, 1.0f);
  CheckRope<2, 32, 1>(4, 60, 10000.0f, 8.0f);
  CheckRope<3, 64, 1>(2, 9, 1000000.0f, 0.5f);
}

TEST(RopeF32, PositionZeroIsIdentity) {
  auto x = RandomFloats(2 * 16, 7);
  const auto copy = x;
  rope_f32<2, 16, 1>(1, 0, x.data(), 10000.0f, 1.0f);
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(x[i], copy[i]);
}

}  // namespace
}  // namespace saguaro::kernels::test
