// Gemma 4's resize policy, patch layout and positions. Expected sizes are worked through by hand from
// transformers' get_aspect_ratio_preserving_size (docs/image.md has the table).
#include <gtest/gtest.h>

#include "image_test_support.h"
#include "saguaro/image/patchify.h"
#include "saguaro/image/soft_token_patches.h"
#include "saguaro/image/soft_token_resize.h"

namespace saguaro::image {
namespace {

struct SizeCase {
  int height, width, max_soft_tokens;
  int want_height, want_width;
};

TEST(SoftTokenSize, MatchesTransformers) {
  const SizeCase cases[] = {
      {768, 768, 280, 768, 768},        // already on the grid: 16 x 16 soft tokens
      {1000, 1000, 280, 768, 768},      // shrink
      {20000, 20000, 280, 768, 768},
      {32, 32, 280, 768, 768},          // upscale a small image
      {480, 640, 280, 672, 912},        // 266 tokens: rounding down leaves some budget unused
      {640, 480, 280, 912, 672},
      {1080, 1920, 280, 576, 1056},
      {100, 20000, 280, 48, 11328},     // one soft token high, still the normal branch
      {2, 700, 280, 48, 13440},         // height rounds to 0: 48 high, min(350·48, 280·48) wide
      {700, 2, 70, 3360, 48},           // width rounds to 0 at 70 tokens
      {1000, 1000, 70, 384, 384},
      {480, 640, 70, 336, 432},
      {1, 1, 1120, 1584, 1584},
  };
  for (const SizeCase& c : cases) {
    const Size s = soft_token_size(c.height, c.width, SoftTokenBudget{c.max_soft_tokens, 3, 16});
    EXPECT_EQ(s.height, c.want_height) << c.height << "x" << c.width << " at " << c.max_soft_tokens;
    EXPECT_EQ(s.width, c.want_width) << c.height << "x" << c.width << " at " << c.max_soft_tokens;
  }
}

/// transformers' two ValueErrors (0 x 0, over budget) cannot fire: every size stays in the budget.
TEST(SoftTokenSize, EverySizeFitsTheBudget) {
  for (int tokens : kSupportedSoftTokens) {
    const SoftTokenBudget b{tokens, 3, 16};
    for (int h : {1, 2, 3, 37, 47, 48, 49, 480, 577, 1999, 4999, 32768})
      for (int w : {1, 2, 3, 37, 47, 48, 49, 480, 577, 1999, 4999, 32768}) {
        const Size s = soft_token_size(h, w, b);
        EXPECT_NO_THROW(check_soft_token_grid(s.height, s.width, b, "x")) << h << "x" << w << " at " << tokens;
      }
  }
}

TEST(SoftTokenBudget, OnlyTheTrainedBudgets) {
  EXPECT_EQ(soft_token_budget_problem({280, 3, 16}), "");
  EXPECT_EQ(soft_token_budget_problem({100, 3, 16}), "100 is not supported (70, 140, 280, 560, 1120)");
  EXPECT_NE(soft_token_budget_problem({1120, 64, 16}).find("above the decoder's limit of 67108864 pixels"),
            std::string::npos);
}

TEST(SoftTokenGrid, RefusesSizesTheResizeCannotMake) {
  const SoftTokenBudget b;
  EXPECT_NO_THROW(check_soft_token_grid(672, 912, b, "x.npy"));
  const std::pair<int, int> bad[] = {{672, 900}, {0, 48}, {48 * 17, 48 * 17}};  // off the grid; empty; 289 tokens
  for (const auto& [h, w] : bad) {
    const std::string message = test::image_error([&] { check_soft_token_grid(h, w, b, "x.npy"); }, "x.npy");
    EXPECT_EQ(message.rfind("x.npy: image ", 0), 0u) << h << "x" << w << ": " << message;
  }
}

TEST(PatchifyChannelsLast, RowMajorPatchesOfRowColumnChannel) {
  // [4, 6, 3] values encoding their place: y·100 + x·10 + c.
  std::vector<float> hwc;
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 6; ++x)
      for (int c = 0; c < 3; ++c) hwc.push_back(static_cast<float>(y * 100 + x * 10 + c));
  std::vector<float> out(6 * 12);
  patchify_channels_last(hwc.data(), 4, 6, 2, out.data());
  const std::vector<float> patch4(out.begin() + 4 * 12, out.begin() + 5 * 12);  // grid row 1, column 1
  EXPECT_EQ(patch4, (std::vector<float>{220, 221, 222, 230, 231, 232, 320, 321, 322, 330, 331, 332}));
}

TEST(SoftTokenPatches, PositionsAreColumnThenRow) {
  const SoftTokenBudget b{70, 1, 2};  // 2-pixel patches, no pooling: a 4 x 6 image is a 2 x 3 grid
  const std::vector<float> hwc(4 * 6 * 3, 0.5f);
  const SoftTokenPatches p = soft_token_patches(hwc.data(), 4, 6, b, "x.npy");
  EXPECT_EQ(p.rows, 2);
  EXPECT_EQ(p.cols, 3);
  EXPECT_EQ(p.patches.shape, (std::vector<int64_t>{6, 12}));
  EXPECT_EQ(p.positions, (std::vector<int32_t>{0, 0, 1, 0, 2, 0, 0, 1, 1, 1, 2, 1}));
}

TEST(SoftTokenPatches, Uint8IsRescaledNotNormalized) {
  Rgb8 image(48, 48);
  image.pixels[0] = 255;
  image.pixels[4] = 51;
  Normalization norm;
  norm.normalize = false;
  const SoftTokenPatches p = soft_token_patches(image, norm, SoftTokenBudget{}, "x.png");
  EXPECT_EQ(p.patches.shape, (std::vector<int64_t>{9, 768}));
  EXPECT_EQ(p.patches.data[0], 1.0f);
  EXPECT_EQ(p.patches.data[4], static_cast<float>(51.0 / 255.0));  // HF: the float64 product as float32
}

TEST(SoftTokenPatches, RefusesValuesOutsideZeroOne) {
  std::vector<float> hwc(48 * 48 * 3, 0.25f);
  hwc[48 * 3 + 5] = 1.5f;  // row 1, column 1, channel 2
  const std::string message =
      test::image_error([&] { soft_token_patches(hwc.data(), 48, 48, SoftTokenBudget{}, "pixels.npy"); }, "pixels.npy");
  EXPECT_NE(message.find("pixels.npy: pixel value 1.5"), std::string::npos) << message;
  EXPECT_NE(message.find("row 1, column 1, channel 2"), std::string::npos) << message;
}

}  // namespace
}  // namespace saguaro::image
