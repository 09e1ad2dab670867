// expand_media_prompt (runtime-min/src/image_prompt.h): each image's placeholder becomes begin-image, n
// placeholders and end-image, each clip's begin-audio, n placeholders and end-audio, as Gemma4Processor expands
// them; the soft tokens fill the placeholders' rows.
#include <gtest/gtest.h>

#include "image_prompt.h"

namespace {
constexpr int32_t kDim = 2, kBos = 2, kImage = 19, kBegin = 17, kEnd = 18, kPad = 0;
constexpr int32_t kAudio = 22, kBeginAudio = 20, kEndAudio = 21;
using Items = std::vector<std::vector<float>>;

saguaro::EncoderSpec tower(int32_t token, int32_t begin, int32_t end) {
  saguaro::EncoderSpec s{};
  s.token_id = token, s.begin_id = begin, s.end_id = end, s.pad_id = kPad;
  return s;
}
const saguaro::EncoderSpec kVision = tower(kImage, kBegin, kEnd), kAudioTower = tower(kAudio, kBeginAudio, kEndAudio);

// A model with the given towers (null: none).
saguaro::ModelSpec model(const saguaro::EncoderSpec* vision, const saguaro::EncoderSpec* audio) {
  saguaro::ModelSpec m{};
  m.dim = kDim, m.vision = vision, m.audio = audio;
  return m;
}

bool expand_image_prompt(const std::vector<int32_t>& ids, const Items& images, saguaro::ImagePrompt* p,
                         std::string* err) {
  return saguaro::expand_media_prompt(model(&kVision, nullptr), kBos, ids, images, {}, p, err);
}
}  // namespace

TEST(ImagePrompt, PlaceholdersTakeTheImagesInOrder) {
  const std::vector<std::vector<float>> images = {{1, 2, 3, 4}, {5, 6}};  // 2 soft tokens, then 1
  saguaro::ImagePrompt p;
  std::string err;
  ASSERT_TRUE(expand_image_prompt({kBos, 40, kImage, 41, kImage}, images, &p, &err));
  EXPECT_EQ(p.ids, (std::vector<int32_t>{kBos, 40, kBegin, kImage, kImage, kEnd, 41, kBegin, kImage, kEnd}));
  EXPECT_EQ(p.lookup, (std::vector<int32_t>{kBos, 40, kBegin, kPad, kPad, kEnd, 41, kBegin, kPad, kEnd}));
  EXPECT_EQ(p.mask, (std::vector<uint8_t>{0, 0, 0, 1, 1, 0, 0, 0, 1, 0}));
  const std::vector<float> rows = {0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 5, 6, 0, 0};
  EXPECT_EQ(p.rows, rows);
}

TEST(ImagePrompt, WithoutPlaceholdersTheImagesGoFirstAfterBos) {
  saguaro::ImagePrompt p;
  std::string err;
  ASSERT_TRUE(expand_image_prompt({kBos, 40, 41}, {{7, 8}}, &p, &err));
  EXPECT_EQ(p.ids, (std::vector<int32_t>{kBos, kBegin, kImage, kEnd, 40, 41}));
  ASSERT_TRUE(expand_image_prompt({40, 41}, {{7, 8}}, &p, &err));
  EXPECT_EQ(p.ids, (std::vector<int32_t>{kBegin, kImage, kEnd, 40, 41}));
}

TEST(ImagePrompt, RefusesPlaceholdersThatDoNotMatchTheImages) {
  saguaro::ImagePrompt p;
  std::string err;
  EXPECT_FALSE(expand_image_prompt({kBos, kImage, kImage}, {{7, 8}}, &p, &err));
  EXPECT_EQ(err, "the prompt has 2 image placeholders but 1 images were given");
}

TEST(ImagePrompt, ClipsTakeTheAudioPlaceholdersBesideImages) {
  saguaro::ImagePrompt p;
  std::string err;
  const auto both = model(&kVision, &kAudioTower);
  ASSERT_TRUE(saguaro::expand_media_prompt(both, kBos, {kBos, kAudio, 40, kImage}, {{1, 2}}, {{3, 4, 5, 6}}, &p, &err))
      << err;
  EXPECT_EQ(p.ids, (std::vector<int32_t>{kBos, kBeginAudio, kAudio, kAudio, kEndAudio, 40, kBegin, kImage, kEnd}));
  EXPECT_EQ(p.lookup, (std::vector<int32_t>{kBos, kBeginAudio, kPad, kPad, kEndAudio, 40, kBegin, kPad, kEnd}));
  EXPECT_EQ(p.mask, (std::vector<uint8_t>{0, 0, 1, 1, 0, 0, 0, 1, 0}));
  const std::vector<float> rows = {0, 0, 0, 0, 3, 4, 5, 6, 0, 0, 0, 0, 0, 0, 1, 2, 0, 0};
  EXPECT_EQ(p.rows, rows);
  // Without placeholders both go after BOS, the images first.
  ASSERT_TRUE(saguaro::expand_media_prompt(both, kBos, {kBos, 40}, {{1, 2}}, {{3, 4}}, &p, &err)) << err;
  EXPECT_EQ(p.ids, (std::vector<int32_t>{kBos, kBegin, kImage, kEnd, kBeginAudio, kAudio, kEndAudio, 40}));
}

TEST(ImagePrompt, RefusesClipsWithoutAnAudioTowerOrPlaceholdersThatDoNotMatch) {
  saguaro::ImagePrompt p;
  std::string err;
  EXPECT_FALSE(saguaro::expand_media_prompt(model(&kVision, nullptr), kBos, {kBos, 40}, {}, {{1, 2}}, &p, &err));
  EXPECT_EQ(err, "the model has no audio tower to take audio");
  EXPECT_FALSE(saguaro::expand_media_prompt(model(nullptr, &kAudioTower), kBos, {kBos, kAudio, kAudio}, {}, {{1, 2}},
                                            &p, &err));
  EXPECT_EQ(err, "the prompt has 2 audio clip placeholders but 1 audio clips were given");
}
