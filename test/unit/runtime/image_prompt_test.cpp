// expand_image_prompt (runtime-min/src/image_prompt.h): each image's placeholder becomes begin-image, n
// placeholders and end-image, as Gemma4Processor expands it; the soft tokens fill the placeholders' rows.
#include <gtest/gtest.h>

#include "image_prompt.h"

namespace {
constexpr int32_t kDim = 2, kBos = 2, kImage = 19, kBegin = 17, kEnd = 18, kPad = 0;

saguaro::EncoderSpec tower() {
  saguaro::EncoderSpec s{};
  s.token_id = kImage, s.begin_id = kBegin, s.end_id = kEnd, s.pad_id = kPad;
  return s;
}
}  // namespace

TEST(ImagePrompt, PlaceholdersTakeTheImagesInOrder) {
  const std::vector<std::vector<float>> images = {{1, 2, 3, 4}, {5, 6}};  // 2 soft tokens, then 1
  saguaro::ImagePrompt p;
  std::string err;
  ASSERT_TRUE(saguaro::expand_image_prompt(tower(), kDim, kBos, {kBos, 40, kImage, 41, kImage}, images, &p, &err));
  EXPECT_EQ(p.ids, (std::vector<int32_t>{kBos, 40, kBegin, kImage, kImage, kEnd, 41, kBegin, kImage, kEnd}));
  EXPECT_EQ(p.lookup, (std::vector<int32_t>{kBos, 40, kBegin, kPad, kPad, kEnd, 41, kBegin, kPad, kEnd}));
  EXPECT_EQ(p.mask, (std::vector<uint8_t>{0, 0, 0, 1, 1, 0, 0, 0, 1, 0}));
  const std::vector<float> rows = {0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 5, 6, 0, 0};
  EXPECT_EQ(p.rows, rows);
}

TEST(ImagePrompt, WithoutPlaceholdersTheImagesGoFirstAfterBos) {
  saguaro::ImagePrompt p;
  std::string err;
  ASSERT_TRUE(saguaro::expand_image_prompt(tower(), kDim, kBos, {kBos, 40, 41}, {{7, 8}}, &p, &err));
  EXPECT_EQ(p.ids, (std::vector<int32_t>{kBos, kBegin, kImage, kEnd, 40, 41}));
  ASSERT_TRUE(saguaro::expand_image_prompt(tower(), kDim, kBos, {40, 41}, {{7, 8}}, &p, &err));
  EXPECT_EQ(p.ids, (std::vector<int32_t>{kBegin, kImage, kEnd, 40, 41}));
}

TEST(ImagePrompt, RefusesPlaceholdersThatDoNotMatchTheImages) {
  saguaro::ImagePrompt p;
  std::string err;
  EXPECT_FALSE(saguaro::expand_image_prompt(tower(), kDim, kBos, {kBos, kImage, kImage}, {{7, 8}}, &p, &err));
  EXPECT_EQ(err, "the prompt has 2 image placeholders but 1 images were given");
}
