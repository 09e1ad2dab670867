// Smart resize, pan-and-scan, rescale/normalize and patch order. Expected sizes come from
// transformers' Python (transcribed in test/reference/image_reference.py), worked through by hand.
#include <gtest/gtest.h>

#include "saguaro/image/error.h"
#include "saguaro/image/pan_and_scan.h"
#include "saguaro/image/patchify.h"
#include "saguaro/image/smart_resize.h"
#include "saguaro/image/to_chw.h"

namespace saguaro::image {
namespace {

struct SmartCase {
  int height, width, factor;
  int64_t min_pixels, max_pixels;
  int want_height, want_width;
};

TEST(SmartResize, MatchesTransformers) {
  const SmartCase cases[] = {
      {480, 640, 28, 3136, 1003520, 476, 644},     // round to the grid
      {70, 42, 28, 3136, 1003520, 56, 56},         // 2.5 and 1.5 both round to 2: half to even
      {4000, 3000, 28, 3136, 1003520, 1148, 840},  // shrink into max_pixels, floor
      {30, 40, 28, 12544, 1003520, 112, 140},      // grow into min_pixels, ceil
      {576, 768, 28, 3136, 12845056, 588, 756},    // dog.jpg with Qwen2-VL's published limits
      {10000, 60, 28, 3136, 1003520, 9996, 56},    // aspect 166:1 is still allowed
  };
  for (const SmartCase& c : cases) {
    const Size s = smart_resize(c.height, c.width, c.factor, c.min_pixels, c.max_pixels, "x.png");
    EXPECT_EQ(s.height, c.want_height) << c.height << "x" << c.width;
    EXPECT_EQ(s.width, c.want_width) << c.height << "x" << c.width;
  }
}

TEST(SmartResize, RefusesTinyAndExtremeImages) {
  EXPECT_THROW(smart_resize(27, 500, 28, 3136, 1003520, "x.png"), ImageError);
  EXPECT_THROW(smart_resize(29, 6000, 28, 3136, 1003520, "x.png"), ImageError);  // 207:1
}

TEST(PanAndScan, CropsAlongTheLongAxis) {
  const PanAndScanConfig gemma;
  const auto landscape = pan_and_scan_crops(400, 1000, gemma);  // ratio 2.5 → 3 crops 334 wide
  ASSERT_EQ(landscape.size(), 3u);
  EXPECT_EQ(landscape[2].x, 668);
  EXPECT_EQ(landscape[2].width, 334);  // clipped to 332 by crop()
  EXPECT_EQ(landscape[2].height, 400);
  const auto portrait = pan_and_scan_crops(900, 300, gemma);
  ASSERT_EQ(portrait.size(), 3u);
  EXPECT_EQ(portrait[1].y, 300);
  EXPECT_EQ(pan_and_scan_crops(400, 3000, gemma).size(), 4u);  // capped by max_num_crops
}

TEST(PanAndScan, NoCropsForSquarishOrSmallImages) {
  const PanAndScanConfig gemma;
  EXPECT_TRUE(pan_and_scan_crops(896, 896, gemma).empty());
  EXPECT_TRUE(pan_and_scan_crops(500, 590, gemma).empty());  // ratio 1.18 < 1.2
  EXPECT_TRUE(pan_and_scan_crops(300, 500, gemma).empty());  // 2 crops of 250 < 256
}

TEST(ToChw, RescalesThenNormalizesPerChannel) {
  Rgb8 image(2, 1);
  image.pixels = {0, 255, 51, 255, 0, 102};
  Normalization norm;  // 1/255, mean = std = 0.5
  float out[6];
  to_chw(image, norm, out);
  EXPECT_FLOAT_EQ(out[0], -1.0f);  // R of pixel 0
  EXPECT_FLOAT_EQ(out[1], 1.0f);   // R of pixel 1
  EXPECT_FLOAT_EQ(out[2], 1.0f);   // G of pixel 0
  EXPECT_NEAR(out[4], (0.2 - 0.5) / 0.5, 1e-6);
  norm.mean = {0.48145466f, 0.4578275f, 0.40821073f};
  norm.std = {0.26862954f, 0.26130258f, 0.27577711f};
  to_chw(image, norm, out);
  EXPECT_NEAR(out[5], (0.4 - 0.40821073) / 0.27577711, 1e-6);
  norm.rescale = norm.normalize = false;
  to_chw(image, norm, out);
  EXPECT_EQ(out[4], 51.0f);
}

/// [3, h, w] planes whose value encodes its position: c·10000 + y·100 + x.
std::vector<float> positions(int h, int w) {
  std::vector<float> chw;
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) chw.push_back(static_cast<float>(c * 10000 + y * 100 + x));
  return chw;
}

TEST(Patchify, SiglipOrderIsRowMajorPatchesOfChannelRowColumn) {
  const std::vector<float> chw = positions(4, 6);
  const PatchLayout l{2, 1, 1};
  std::vector<float> out(6 * patch_dim(l));
  patchify(chw.data(), 4, 6, l, out.data());
  const std::vector<float> patch4(out.begin() + 4 * 12, out.begin() + 5 * 12);  // grid row 1, column 1
  EXPECT_EQ(patch4, (std::vector<float>{202, 203, 302, 303, 10202, 10203, 10302, 10303, 20202, 20203, 20302, 20303}));
}

TEST(Patchify, QwenOrderWalksMergeWindowsAndRepeatsFrames) {
  const std::vector<float> chw = positions(4, 8);  // grid 2x4, merge 2: two windows
  const PatchLayout l{2, 2, 2};
  ASSERT_EQ(patch_dim(l), 24);
  std::vector<float> out(8 * patch_dim(l));
  patchify(chw.data(), 4, 8, l, out.data());
  std::vector<float> corners;
  for (int i = 0; i < 8; ++i) corners.push_back(out[i * 24]);
  EXPECT_EQ(corners, (std::vector<float>{0, 2, 200, 202, 4, 6, 204, 206}));
  // Inside a vector: channel, then frame (a still image repeats), then row, column.
  const std::vector<float> first(out.begin(), out.begin() + 12);
  EXPECT_EQ(first, (std::vector<float>{0, 1, 100, 101, 0, 1, 100, 101, 10000, 10001, 10100, 10101}));
}

}  // namespace
}  // namespace saguaro::image
