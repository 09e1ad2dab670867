// Decoding: the shared PNG bit for bit and the shared JPEGs' channel means against Pillow's
// decode_reference_pillow.json, and crafted PNGs of every colour type against Pillow's
// convert("RGB") rules (which test/e2e/test_features_image.py checks against Pillow itself).
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "image_test_support.h"
#include "saguaro/image/decode.h"

namespace saguaro::image {
namespace {

using test::Bytes;

/// The Pillow reference entry whose key ends with "/name" (keys keep the source folders).
nlohmann::json pillow_reference(const std::string& name) {
  std::ifstream f(std::string(SAGUARO_SHARED_DIR) + "/data/images/decode_reference_pillow.json");
  const nlohmann::json all = nlohmann::json::parse(f);
  for (const auto& [key, value] : all.items())
    if (key.size() > name.size() && key.compare(key.size() - name.size() - 1, std::string::npos, "/" + name) == 0)
      return value;
  return nullptr;
}

TEST(Decode, PngIsBitExactWithPillow) {
  const std::string path = test::shared_image("phototest.derived.png");
  if (path.empty()) GTEST_SKIP() << "needs ../shared/data/images";
  const nlohmann::json ref = pillow_reference("phototest.derived.png");
  const Rgb8 image = decode_image(path);
  EXPECT_EQ(image.width, ref["width"].get<int>());
  EXPECT_EQ(image.height, ref["height"].get<int>());
  EXPECT_EQ(test::sha256_hex(image.pixels.data(), image.pixels.size()), ref["rgb_sha256"].get<std::string>());
}

class JpegMeans : public ::testing::TestWithParam<const char*> {};

TEST_P(JpegMeans, WithinOneOfPillowPerChannel) {
  const std::string path = test::shared_image(GetParam());
  if (path.empty()) GTEST_SKIP() << "needs ../shared/data/images";
  const nlohmann::json ref = pillow_reference(GetParam());
  const Rgb8 image = decode_image(path);
  ASSERT_EQ(image.width, ref["width"].get<int>());
  ASSERT_EQ(image.height, ref["height"].get<int>());
  for (int c = 0; c < 3; ++c) {
    double sum = 0;
    for (size_t i = c; i < image.pixels.size(); i += 3) sum += image.pixels[i];
    const double mean = sum / (static_cast<double>(image.width) * image.height);
    const double diff = mean - ref["rgb_mean"][c].get<double>();
    std::printf("%s channel %d: mean %.4f, Pillow %.4f, difference %+.4f\n", GetParam(), c, mean,
                ref["rgb_mean"][c].get<double>(), diff);
    EXPECT_LT(std::abs(diff), 1.0) << "channel " << c;
  }
}

INSTANTIATE_TEST_SUITE_P(Shared, JpegMeans, ::testing::Values("dog.jpg", "person.jpg"));

Rgb8 decode_bytes(const Bytes& bytes) { return decode_image_memory(bytes.data(), bytes.size(), "crafted.png"); }

std::vector<int> pixels_of(const Rgb8& image) { return std::vector<int>(image.pixels.begin(), image.pixels.end()); }

TEST(Decode, GreyIsReplicated) {
  const Rgb8 image = decode_bytes(test::make_png(2, 1, 0, 8, {0, 10, 200}));
  EXPECT_EQ(pixels_of(image), (std::vector<int>{10, 10, 10, 200, 200, 200}));
}

TEST(Decode, OneBitGreyBecomesBlackAndWhite) {
  const Rgb8 image = decode_bytes(test::make_png(3, 1, 0, 1, {0, 0b10100000}));
  EXPECT_EQ(pixels_of(image), (std::vector<int>{255, 255, 255, 0, 0, 0, 255, 255, 255}));
}

TEST(Decode, GreyAlphaDropsAlphaWithoutCompositing) {
  const Rgb8 image = decode_bytes(test::make_png(2, 1, 4, 8, {0, 10, 0, 200, 128}));
  EXPECT_EQ(pixels_of(image), (std::vector<int>{10, 10, 10, 200, 200, 200}));
}

TEST(Decode, RgbaDropsAlphaWithoutCompositing) {
  const Rgb8 image = decode_bytes(test::make_png(2, 1, 6, 8, {0, 10, 20, 30, 0, 200, 100, 50, 128}));
  EXPECT_EQ(pixels_of(image), (std::vector<int>{10, 20, 30, 200, 100, 50}));
}

TEST(Decode, PaletteWithTransparencyLooksUpColours) {
  const Bytes plte = test::png_chunk("PLTE", {1, 2, 3, 40, 50, 60}), trns = test::png_chunk("tRNS", {0});
  const Rgb8 image = decode_bytes(test::make_png(2, 1, 3, 8, {0, 1, 0}, {plte, trns}));
  EXPECT_EQ(pixels_of(image), (std::vector<int>{40, 50, 60, 1, 2, 3}));
}

TEST(Decode, SixteenBitRgbKeepsTheHighByte) {
  const Rgb8 image = decode_bytes(test::make_png(1, 1, 2, 16, {0, 0x12, 0x34, 0xAB, 0xCD, 0x00, 0xFF}));
  EXPECT_EQ(pixels_of(image), (std::vector<int>{0x12, 0xAB, 0x00}));
}

TEST(Decode, SixteenBitGreyClipsAt255LikePillow) {
  const Rgb8 image = decode_bytes(test::make_png(4, 1, 0, 16, {0, 0x00, 0x10, 0x00, 0xFF, 0x01, 0x00, 0x0F, 0xA0}));
  EXPECT_EQ(pixels_of(image), (std::vector<int>{16, 16, 16, 255, 255, 255, 255, 255, 255, 255, 255, 255}));
}

TEST(Decode, SmallImagesMakeOnlySmallDecoderAllocations) {
  reset_decoder_allocation_stats();
  decode_bytes(test::make_png(64, 64, 2, 8, Bytes(64 * (1 + 64 * 3), 0)));
  EXPECT_GT(largest_decoder_allocation(), 0u);
  EXPECT_LT(largest_decoder_allocation(), 64u * 64 * 8 + 65536);
}

}  // namespace
}  // namespace saguaro::image
