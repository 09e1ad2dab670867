// preprocessor_config.json parsing: the published configs in test/fixtures/image, and one
// clear error per kind of bad value.
#include <gtest/gtest.h>

#include "image_test_support.h"
#include "saguaro/image/config.h"
#include "saguaro/image/error.h"

namespace saguaro::image {
namespace {

ImageConfig fixture(const std::string& name) {
  return ImageConfig::from_preprocessor_json(std::string(SAGUARO_IMAGE_FIXTURES) + "/" + name);
}

TEST(Config, Siglip) {
  const ImageConfig c = fixture("siglip-base-patch16-224.json");
  EXPECT_EQ(c.mode, ResizeMode::Fixed);
  EXPECT_EQ(c.size.height, 224);
  EXPECT_EQ(c.size.width, 224);
  EXPECT_EQ(c.resample, Resample::Bicubic);
  EXPECT_EQ(c.norm.mean[1], 0.5f);
  EXPECT_DOUBLE_EQ(c.norm.rescale_factor, 1.0 / 255);
  EXPECT_EQ(c.patch_size, 0);
  EXPECT_EQ(fixture("siglip-base-patch16-224-patches.json").patch_size, 16);
}

TEST(Config, Gemma3NullsMeanDefaults) {
  const ImageConfig c = fixture("gemma-3-4b-it.json");
  EXPECT_EQ(c.size.height, 896);
  EXPECT_EQ(c.resample, Resample::Bilinear);
  EXPECT_FALSE(c.do_pan_and_scan);
  EXPECT_EQ(c.pan_and_scan.min_crop_size, 256);
  EXPECT_TRUE(fixture("gemma-3-4b-it-pan-and-scan.json").do_pan_and_scan);
}

TEST(Config, Qwen2VlTakesClassDefaultsForMissingKeys) {
  const ImageConfig c = fixture("qwen2-vl-2b-instruct.json");
  EXPECT_EQ(c.mode, ResizeMode::Smart);
  EXPECT_EQ(c.max_pixels, 12845056);
  EXPECT_EQ(c.min_pixels, 3136);
  EXPECT_EQ(c.resample, Resample::Bicubic);
  EXPECT_EQ(c.patch_size, 14);
  EXPECT_EQ(c.merge_size, 2);
  EXPECT_EQ(c.temporal_patch_size, 2);
  EXPECT_FLOAT_EQ(c.norm.std[2], 0.27577711f);
}

TEST(Config, ClipLegacyIntegerSizeIsTheShortestEdge) {
  const ImageConfig c = fixture("clip-vit-base-patch32.json");
  EXPECT_EQ(c.processor, "CLIPImageProcessor");
  EXPECT_EQ(c.mode, ResizeMode::ShortestEdge);
  EXPECT_EQ(c.shortest_edge, 224);
  EXPECT_TRUE(c.do_center_crop);
  EXPECT_EQ(c.crop_size.width, 224);
}

TEST(Config, Gemma4TakesTheSoftTokenBudget) {
  const ImageConfig c = fixture("gemma-4-e2b-it.json");
  EXPECT_EQ(c.processor, "Gemma4ImageProcessor");
  EXPECT_EQ(c.mode, ResizeMode::SoftTokens);
  EXPECT_EQ(c.max_soft_tokens, 280);
  EXPECT_EQ(c.pooling_kernel_size, 3);
  EXPECT_EQ(c.patch_size, 16);
  EXPECT_EQ(c.resample, Resample::Bicubic);
  EXPECT_FALSE(c.norm.normalize);
  // The class defaults are the same when the file names only the type (the PIL backend's name too).
  const ImageConfig d = ImageConfig::from_json_text(R"({"image_processor_type": "Gemma4ImageProcessorPil"})", "p.json");
  EXPECT_EQ(d.processor, "Gemma4ImageProcessor");
  EXPECT_EQ(d.soft_token_budget().max_patches(), 2520);
  EXPECT_FALSE(d.norm.normalize);
  EXPECT_DOUBLE_EQ(d.norm.rescale_factor, 1.0 / 255);
}

TEST(Config, ProcessorConfigNestsTheImageProcessor) {
  const ImageConfig c = fixture("gemma-4-e2b-it-processor.json");
  EXPECT_EQ(c.mode, ResizeMode::SoftTokens);
  EXPECT_EQ(c.max_soft_tokens, 140);
}

TEST(Config, QwenPixelRangeAsSize) {
  const ImageConfig c = ImageConfig::from_json_text(
      R"({"image_processor_type": "Qwen2VLImageProcessorFast", "size": {"shortest_edge": 100, "longest_edge": 5000}})",
      "q.json");
  EXPECT_EQ(c.min_pixels, 100);
  EXPECT_EQ(c.max_pixels, 5000);
}

/// Each bad config must fail with "bad.json: KEY: ..." on one line.
TEST(Config, BadValuesNameTheFileAndKey) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"resample": 1})", "resample: 1 is not supported"},
      {R"({"resample": "bicubic"})", "resample: expected a number"},
      {R"({"resample": 2.5})", "resample: expected an integer"},
      {R"({"image_std": [0.5, 0, 0.5]})", "image_std: every value must be above 0"},
      {R"({"image_mean": [0.5, 0.5]})", "image_mean: expected a number or a list of 3 numbers"},
      {R"({"size": {"height": 0, "width": 10}})", "size.height: expected an integer in [1, 16384]"},
      {R"({"size": {"width": 10}})", "size: expected {\"height\": H, \"width\": W}"},
      {R"({"do_resize": "yes"})", "do_resize: expected true or false"},
      {R"({"rescale_factor": -1})", "rescale_factor: must be above 0"},
      {R"({"image_processor_type": "LlavaNextImageProcessor"})", "image_processor_type: 'LlavaNextImageProcessor'"},
      {R"({"image_processor_type": "Qwen2VLImageProcessor", "min_pixels": 9000, "max_pixels": 100})",
       "min_pixels: is above max_pixels"},
      {R"({"do_pan_and_scan": true})", "do_pan_and_scan: is only supported for Gemma3ImageProcessor"},
      {R"({"do_center_crop": true})", "do_center_crop: is only supported after shortest_edge"},
      {R"({"do_pad": true})", "do_pad: true is not supported"},
      {R"({"patch_size": 0})", "patch_size: expected an integer in [1, 1024]"},
      {R"({"image_processor_type": "Gemma4ImageProcessor", "max_soft_tokens": 100})",
       "max_soft_tokens: 100 is not supported (70, 140, 280, 560, 1120)"},
      {R"({"image_processor": {"image_processor_type": "Gemma4ImageProcessor", "max_soft_tokens": 256}})",
       "image_processor.max_soft_tokens: 256 is not supported"},
      {R"({"image_processor_type": "Gemma4ImageProcessor", "pooling_kernel_size": 64, "max_soft_tokens": 1120})",
       "max_soft_tokens: 1120 with pooling_kernel_size 64 and patch_size 16 allows resized images above the"},
      {R"({"image_processor_type": "Gemma4ImageProcessor", "merge_size": 2})",
       "merge_size: is not supported for Gemma 4"},
      {R"({"processor_class": "Gemma4Processor", "image_seq_length": 280})",
       "image_processor_type: absent, and no image_processor object"},
      {R"([1, 2])", "expected a JSON object"},
      {R"({"size": )", "invalid JSON"},
  };
  for (const auto& [text, want] : cases) {
    const std::string message = test::image_error([&] { ImageConfig::from_json_text(text, "bad.json"); }, "bad.json");
    EXPECT_NE(message.find(want), std::string::npos) << text << " → " << message;
  }
}

TEST(Config, MissingFile) {
  EXPECT_THROW(ImageConfig::from_preprocessor_json("/nonexistent/preprocessor_config.json"), ImageError);
}

}  // namespace
}  // namespace saguaro::image
