// rope_f32 against double-precision rotation (interleaved and rotate_half styles); rope_2d_f32 against Gemma 4's
// vision RoPE (Gemma4VisionRotaryEmbedding, apply_multidimensional_rope) in double.
#include "saguaro/kernels/kernels.h"
#include "test_util.h"

namespace saguaro::kernels::test {
namespace {

/// RoPE in double: style 0 rotates pairs (2i, 2i+1), style 1 pairs (i, i+HD/2); position (pos0+r)/pos_scale. Only
/// the first `rotary` pairs rotate (-1: all), with the frequencies of the whole hd.
std::vector<double> RefRope(const std::vector<float>& x, int rows, int heads, int hd, int style, int pos0,
                            double theta, double pos_scale, int rotary = -1) {
  std::vector<double> out(x.begin(), x.end());
  for (int r = 0; r < rows; ++r)
    for (int h = 0; h < heads; ++h)
      for (int i = 0; i < (rotary < 0 ? hd / 2 : rotary); ++i) {
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

/// Hugging Face's _compute_llama3_parameters for one inverse frequency, in double.
double RefLlama3InvFreq(int i, int hd, double theta, double factor, double low, double high, double context) {
  const double freq = 1.0 / std::pow(theta, static_cast<double>(2 * i) / hd);
  const double wavelen = 2 * M_PI / freq;
  if (wavelen < context / high) return freq;
  if (wavelen > context / low) return freq / factor;
  const double smooth = (context / wavelen - low) / (high - low);
  return (1 - smooth) * freq / factor + smooth * freq;
}

TEST(RopeF32, Llama3FrequenciesMatchHuggingFace) {
  // Llama-3.2-1B's parameters (head dim 64, theta 5e5, factor 32, bands 1..4 of 8192 positions) and a short
  // context so that the smoothed middle band covers several frequencies.
  int kept = 0, stretched = 0, blended = 0;
  for (double context : {8192.0, 64.0}) {
    for (int i = 0; i < 32; ++i) {
      const double want = RefLlama3InvFreq(i, 64, 500000.0, 32.0, 1.0, 4.0, context);
      const double base = 1.0 / std::pow(500000.0, 2.0 * i / 64);
      const float got = generic::rope_inv_freq(i, 64, 500000.0f, 32.0f, 1.0f, 4.0f, static_cast<float>(context));
      EXPECT_NEAR(got, want, 2e-6 * want) << "i " << i << " context " << context;
      kept += want == base, stretched += std::abs(want * 32 - base) < 1e-12 * base, blended += want != base;
    }
  }
  EXPECT_GT(kept, 0);
  EXPECT_GT(stretched, 0);
  EXPECT_GT(blended, stretched);  // some frequencies lie in the blended band
  // A zero factor leaves theta^(-2i/d) untouched.
  EXPECT_EQ(generic::rope_inv_freq(5, 64, 10000.0f, 0.0f, 1.0f, 4.0f, 8192.0f),
            1.0f / powf(10000.0f, 10.0f / 64.0f));
}

/// Checks partial rotary rope_f32<H, HD, Style, Rotary>: the first Rotary pairs rotate as in a full RoPE of HD, the
/// others are left exactly as they were.
template <int H, int HD, int Style, int Rotary>
void CheckPartialRope(int32_t rows, int32_t pos0, float theta, float pos_scale) {
  auto x = RandomFloats(rows * H * HD, 130 + H * HD + Rotary + Style);
  const auto want = RefRope(x, rows, H, HD, Style, pos0, theta, pos_scale, Rotary);
  rope_f32<H, HD, Style, Rotary>(rows, pos0, x.data(), theta, pos_scale);
  ExpectClose(x, want, 1e-5 * std::max(1.0, (pos0 + rows) / 8.0));
  for (size_t i = 0; i < x.size(); ++i) {
    const int d = static_cast<int>(i % HD), pair = Style == 0 ? d / 2 : d % (HD / 2);
    if (pair >= Rotary) {
      EXPECT_EQ(x[i], static_cast<float>(want[i])) << "element " << i << " should not rotate";
    }
  }
}

TEST(RopeF32, PartialRotaryRotatesTheFirstPairsOnly) {
  // Gemma 4's full layers: proportional RoPE over head dim 32 with partial_rotary_factor 0.25 rotates 4 pairs.
  CheckPartialRope<4, 32, 1, 4>(5, 0, 1000000.0f, 1.0f);
  CheckPartialRope<1, 32, 1, 4>(3, 21, 1000000.0f, 2.0f);
  CheckPartialRope<2, 16, 1, 3>(2, 9, 10000.0f, 1.0f);
  CheckPartialRope<2, 16, 0, 5>(2, 9, 10000.0f, 1.0f);
  CheckPartialRope<2, 16, 1, 0>(2, 9, 10000.0f, 1.0f);  // none
  CheckPartialRope<2, 16, 1, 8>(2, 9, 10000.0f, 1.0f);  // all: rope_f32<2, 16, 1>
}

TEST(RopeF32, PositionZeroIsIdentity) {
  auto x = RandomFloats(2 * 16, 7);
  const auto copy = x;
  rope_f32<2, 16, 1>(1, 0, x.data(), 10000.0f, 1.0f);
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(x[i], copy[i]);
}

/// Gemma 4's 2-D vision RoPE in double, as modeling_gemma4.py writes it: per head, channels [0, hd/2) by the x
/// position and [hd/2, hd) by the y position; each chunk c of n = hd/2 channels becomes c·cos(emb) +
/// rotate_half(c)·sin(emb), emb = cat(freqs, freqs), freqs_j = pos / theta^(2j/n), rotate_half(c) = cat(-c[n/2:],
/// c[:n/2]).
std::vector<double> RefRope2d(const std::vector<float>& x, const std::vector<int32_t>& positions, int heads, int hd,
                              double theta) {
  const int n = hd / 2;
  std::vector<double> out(x.size());
  for (size_t r = 0; r < positions.size() / 2; ++r)
    for (int h = 0; h < heads; ++h)
      for (int axis = 0; axis < 2; ++axis) {
        const size_t base = (r * heads + h) * hd + axis * n;
        for (int i = 0; i < n; ++i) {
          const double emb = positions[2 * r + axis] / std::pow(theta, 2.0 * (i % (n / 2)) / n);
          const double rotated = i < n / 2 ? -static_cast<double>(x[base + i + n / 2]) : x[base + i - n / 2];
          out[base + i] = x[base + i] * std::cos(emb) + rotated * std::sin(emb);
        }
      }
  return out;
}

/// Checks rope_2d_f32<H, HD> at `positions` ([x, y] per row).
template <int H, int HD>
void CheckRope2d(const std::vector<int32_t>& positions, float theta) {
  const int32_t rows = static_cast<int32_t>(positions.size() / 2);
  auto x = RandomFloats(static_cast<size_t>(rows) * H * HD, 140 + H * HD);
  const auto want = RefRope2d(x, positions, H, HD, theta);
  rope_2d_f32<H, HD>(rows, positions.data(), x.data(), theta);
  // As for rope_f32: the float angle pos·freq is off by ~|pos|·2^-24 radians.
  const int32_t max_pos = *std::max_element(positions.begin(), positions.end());
  ExpectClose(x, want, 1e-5 * std::max(1.0, max_pos / 8.0));
}

TEST(Rope2dF32, VisionGrid) {
  std::vector<int32_t> grid;
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 6; ++x) grid.push_back(x), grid.push_back(y);
  CheckRope2d<3, 64>(grid, 100.0f);  // Gemma 4 E2B's head size and theta
  CheckRope2d<2, 72>(grid, 100.0f);  // the large models' head size: 18 frequencies per axis
  CheckRope2d<1, 8>(grid, 10000.0f);
}

TEST(Rope2dF32, WideGridAndPadding) {
  // A 100 × 20000 image at 280 soft tokens is 708 patches wide; padding patches (-1) rotate backwards, as in HF.
  CheckRope2d<2, 16>({707, 0, 0, 2, 350, 1, -1, -1}, 100.0f);
}

TEST(Rope2dF32, AxesAreIndependent) {
  // Position (0, y) leaves the first half of every head as it was, (x, 0) the second.
  auto x = RandomFloats(2 * 2 * 16, 9);
  const auto copy = x;
  const std::vector<int32_t> positions = {0, 5, 7, 0};
  rope_2d_f32<2, 16>(2, positions.data(), x.data(), 100.0f);
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 8; ++i) {
      EXPECT_EQ(x[h * 16 + i], copy[h * 16 + i]) << "row 0 head " << h << " channel " << i;
      EXPECT_EQ(x[32 + h * 16 + 8 + i], copy[32 + h * 16 + 8 + i]) << "row 1 head " << h << " channel " << 8 + i;
    }
}

}  // namespace
}  // namespace saguaro::kernels::test
