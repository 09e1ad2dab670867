// write_image_features (the driver's entry point) and preprocess() shapes: what is written, and
// that a failure writes nothing and leaves an existing output alone.
#include <gtest/gtest.h>

#include "image_test_support.h"
#include "saguaro/image/error.h"
#include "saguaro/image/features.h"
#include "saguaro/image/preprocess.h"

namespace saguaro::image {
namespace {

using test::Bytes;

std::string fixture(const std::string& name) { return std::string(SAGUARO_IMAGE_FIXTURES) + "/" + name; }

/// A w×h RGB PNG with a smooth gradient.
std::string gradient_png(const std::string& name, int w, int h) {
  Bytes rows;
  for (int y = 0; y < h; ++y) {
    rows.push_back(0);
    for (int x = 0; x < w; ++x) rows.insert(rows.end(), {uint8_t(x * 255 / w), uint8_t(y * 255 / h), 90});
  }
  const std::string path = test::temp_path(name);
  test::write_bytes(path, test::make_png(w, h, 2, 8, rows));
  return path;
}

/// The header dict of an .npy file (between the length field and the data).
std::string npy_header(const Bytes& npy) {
  if (npy.size() < 10) return "";
  const size_t length = npy[8] | npy[9] << 8;
  return std::string(npy.begin() + 10, npy.begin() + 10 + length);
}

TEST(Features, DecodeOnlyWritesUint8HeightWidthChannels) {
  const std::string out = test::temp_path("pixels.npy");
  FeaturesResult result;
  std::string err;
  ASSERT_TRUE(write_image_features({gradient_png("g.png", 5, 3), "", true, out}, &result, &err)) << err;
  EXPECT_EQ(result.shape, (std::vector<int64_t>{3, 5, 3}));
  const Bytes npy = test::read_bytes(out);
  EXPECT_NE(npy_header(npy).find("'descr': '|u1', 'fortran_order': False, 'shape': (3, 5, 3), }"), std::string::npos);
  EXPECT_EQ(npy.size(), 128u + 45);  // header padded to 64 bytes, then 5·3·3 pixels
  EXPECT_EQ(npy.back(), 90);             // blue of the last pixel
}

TEST(Features, ConfiguredWritesFloat32Planes) {
  const std::string out = test::temp_path("features.npy");
  FeaturesResult result;
  std::string err;
  ASSERT_TRUE(write_image_features({gradient_png("g.png", 50, 30), fixture("siglip-base-patch16-224.json"), false, out},
                                   &result, &err))
      << err;
  EXPECT_EQ(result.shape, (std::vector<int64_t>{1, 3, 224, 224}));
  const Bytes npy = test::read_bytes(out);
  EXPECT_NE(npy_header(npy).find("'descr': '<f4'"), std::string::npos);
  EXPECT_EQ(npy.size(), 128u + 3 * 224 * 224 * 4);
}

TEST(Features, FailuresWriteNothingAndKeepAnExistingOutput) {
  const std::string out = test::temp_path("kept.npy");
  test::write_bytes(out, {'o', 'l', 'd'});
  const std::string empty = test::temp_path("empty.png");
  test::write_bytes(empty, {});
  const std::string bad_config = test::temp_path("bad.json");
  test::write_bytes(bad_config, Bytes{'{', '"', 'r', 'e', 's', 'a', 'm', 'p', 'l', 'e', '"', ':', '9', '}'});
  const FeaturesRequest requests[] = {
      {empty, "", true, out},
      {empty, "", false, out},
      {gradient_png("g.png", 4, 4), bad_config, false, out},
      {gradient_png("g.png", 4, 4), "", false, test::temp_path("no-such-dir") + "/out.npy"},
  };
  for (const FeaturesRequest& r : requests) {
    FeaturesResult result;
    std::string err;
    EXPECT_FALSE(write_image_features(r, &result, &err));
    EXPECT_FALSE(err.empty());
    EXPECT_EQ(err.find('\n'), std::string::npos) << err;
    EXPECT_EQ(test::read_bytes(out), (Bytes{'o', 'l', 'd'})) << err;
    EXPECT_FALSE(test::file_exists(out + ".tmp")) << err;
  }
}

TEST(Features, Gemma4WritesPatchesAndPositionsOrNeither) {
  const std::string out = test::temp_path("patches.npy"), pos = test::temp_path("positions.npy");
  FeaturesRequest request{gradient_png("g.png", 40, 30), fixture("gemma-4-e2b-it.json"), false, out};
  request.positions_path = pos;
  request.max_soft_tokens = 70;
  FeaturesResult result;
  std::string err;
  ASSERT_TRUE(write_image_features(request, &result, &err)) << err;
  // 30 x 40 at 70 soft tokens: upscaled to 336 x 432, 7 x 9 soft tokens of 3 x 3 patches.
  EXPECT_EQ(result.shape, (std::vector<int64_t>{567, 768}));
  EXPECT_EQ(result.positions_shape, (std::vector<int64_t>{567, 2}));
  const Bytes positions = test::read_bytes(pos);
  EXPECT_NE(npy_header(positions).find("'descr': '<i4', 'fortran_order': False, 'shape': (567, 2), }"),
            std::string::npos);
  EXPECT_EQ(positions.size(), 128u + 567 * 2 * 4);

  request.resized_only = true;
  request.positions_path.clear();
  ASSERT_TRUE(write_image_features(request, &result, &err)) << err;
  EXPECT_EQ(result.shape, (std::vector<int64_t>{336, 432, 3}));

  // The positions cannot be written: the patches are not written either.
  std::remove(out.c_str());
  request.resized_only = false;
  request.positions_path = test::temp_path("no-such-dir") + "/positions.npy";
  EXPECT_FALSE(write_image_features(request, &result, &err));
  EXPECT_FALSE(test::file_exists(out)) << err;
  EXPECT_FALSE(test::file_exists(out + ".tmp")) << err;
}

TEST(Features, RefusesOptionsTheProcessorHasNoUseFor) {
  const std::string png = gradient_png("g.png", 40, 30), out = test::temp_path("unused.npy");
  FeaturesRequest crops{png, fixture("gemma-3-4b-it-pan-and-scan.json"), false, out};
  crops.resized_only = true;
  FeaturesRequest siglip{png, fixture("siglip-base-patch16-224.json"), false, out};
  siglip.max_soft_tokens = 280;
  const std::pair<FeaturesRequest, const char*> cases[] = {
      {crops, "resized-only output of pan-and-scan crops is not supported"},
      {siglip, "belong to Gemma4ImageProcessor, not SiglipImageProcessor"},
  };
  for (const auto& [request, want] : cases) {
    FeaturesResult result;
    std::string err;
    EXPECT_FALSE(write_image_features(request, &result, &err));
    EXPECT_EQ(err.rfind(request.config_path + ": ", 0), 0u) << err;
    EXPECT_NE(err.find(want), std::string::npos) << err;
    EXPECT_FALSE(test::file_exists(out)) << err;
  }
}

TEST(Preprocess, ShapesOfEachProcessor) {
  const Rgb8 wide = [] {
    Rgb8 image(1000, 400);
    for (size_t i = 0; i < image.pixels.size(); ++i) image.pixels[i] = static_cast<uint8_t>(i * 7);
    return image;
  }();
  const auto shape = [&](const std::string& config) {
    return preprocess(wide, ImageConfig::from_preprocessor_json(fixture(config)), "wide.png").shape;
  };
  EXPECT_EQ(shape("gemma-3-4b-it.json"), (std::vector<int64_t>{1, 3, 896, 896}));
  EXPECT_EQ(shape("gemma-3-4b-it-pan-and-scan.json"), (std::vector<int64_t>{4, 3, 896, 896}));  // + 3 crops
  EXPECT_EQ(shape("siglip-base-patch16-224-patches.json"), (std::vector<int64_t>{196, 768}));
  EXPECT_EQ(shape("clip-vit-base-patch32.json"), (std::vector<int64_t>{1, 3, 224, 224}));
  // smart_resize(400, 1000) = 392 x 1008: 28 x 72 patches of 3·2·14·14 values.
  EXPECT_EQ(shape("qwen2-vl-2b-instruct.json"), (std::vector<int64_t>{28 * 72, 1176}));
  // 400 x 1000 at 280 soft tokens: 480 x 1248, 10 x 26 soft tokens of 3 x 3 patches.
  EXPECT_EQ(shape("gemma-4-e2b-it.json"), (std::vector<int64_t>{30 * 78, 768}));
}

TEST(Preprocess, PatchesNeedAGridMultiple) {
  ImageConfig c;
  c.do_resize = false;
  c.patch_size = 16;
  EXPECT_THROW(preprocess(Rgb8(20, 16), c, "odd.png"), ImageError);
}

}  // namespace
}  // namespace saguaro::image
