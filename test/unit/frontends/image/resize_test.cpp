// Pillow's resampling on cases small enough to work out by hand from Resample.c's definitions;
// test/e2e/test_features_image.py compares real images with Pillow and the numpy oracle.
#include <gtest/gtest.h>

#include "saguaro/image/resize.h"

namespace saguaro::image {
namespace {

/// A one-row grey image (R = G = B) with the given values.
Rgb8 grey_row(const std::vector<int>& values) {
  Rgb8 image(static_cast<int>(values.size()), 1);
  for (size_t i = 0; i < values.size(); ++i) std::fill_n(&image.pixels[3 * i], 3, static_cast<uint8_t>(values[i]));
  return image;
}

std::vector<int> red_row(const Rgb8& image) {
  std::vector<int> out;
  for (int x = 0; x < image.width; ++x) out.push_back(image.pixels[3 * x]);
  return out;
}

Rgb8 transpose(const Rgb8& image) {
  Rgb8 out(image.height, image.width);
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < image.width; ++x) std::copy_n(image.row(y) + 3 * x, 3, out.row(x) + 3 * y);
  return out;
}

TEST(ResampleCoeffs, BilinearHalvingWidensTheTriangle) {
  // 4 → 2: scale 2, support 2; output 0 is centred at 1.0 and reads inputs 0..2 with triangle
  // weights 0.75, 0.75, 0.25, normalized to 3/7, 3/7, 1/7 and rounded to 22 bits.
  const AxisCoeffs c = pillow_axis_coeffs(4, 2, Resample::Bilinear);
  EXPECT_EQ(c.taps, 5);
  EXPECT_EQ(c.first, (std::vector<int>{0, 1}));
  EXPECT_EQ(c.count, (std::vector<int>{3, 3}));
  EXPECT_EQ(c.weights[0], 1797559);  // round(3/7 · 2^22)
  EXPECT_EQ(c.weights[1], 1797559);
  EXPECT_EQ(c.weights[2], 599186);  // round(1/7 · 2^22)
  EXPECT_EQ(c.weights[5 + 0], 599186);
}

TEST(ResampleCoeffs, BicubicHasNegativeLobesRoundedAwayFromZero) {
  // 2 → 4 upscaling keeps support 2; output 1 (centre 0.75) reads inputs 0, 1 at distances
  // 0.25 and 0.75: Keys weights 0.8671875 and 0.2265625 (sum 1.09375) → 0.79285714, 0.20714286.
  const AxisCoeffs c = pillow_axis_coeffs(2, 4, Resample::Bicubic);
  EXPECT_EQ(c.first[1], 0);
  EXPECT_EQ(c.count[1], 2);
  EXPECT_EQ(c.weights[c.taps + 0], 3325484);  // round(0.8671875 / 1.09375 · 2^22)
  EXPECT_EQ(c.weights[c.taps + 1], 868820);
  // Output 0 (centre 0.25) reads inputs 0, 1 at 0.25 and 1.25: weights 0.8671875 and -0.0703125.
  EXPECT_EQ(c.weights[0], 4564390);  // round(0.8671875 / 0.796875 · 2^22)
  EXPECT_EQ(c.weights[1], -370086);  // -0.0703125 / 0.796875 · 2^22, rounded away from zero
}

TEST(Resize, BilinearHalvingByHand) {
  // 3/7·0 + 3/7·70 + 1/7·140 = 50 and 1/7·70 + 3/7·140 + 3/7·210 = 160.
  EXPECT_EQ(red_row(resize(grey_row({0, 70, 140, 210}), 2, 1, Resample::Bilinear)), (std::vector<int>{50, 160}));
}

TEST(Resize, BilinearDoublingByHand) {
  EXPECT_EQ(red_row(resize(grey_row({0, 100}), 4, 1, Resample::Bilinear)), (std::vector<int>{0, 25, 75, 100}));
}

TEST(Resize, HalfwayValuesRoundUp) {
  // (0 + 255) / 2 = 127.5 → Pillow adds 2^21 before the shift: 128.
  EXPECT_EQ(red_row(resize(grey_row({0, 255}), 1, 1, Resample::Bicubic)), (std::vector<int>{128}));
  EXPECT_EQ(red_row(resize(grey_row({0, 255}), 1, 1, Resample::Bilinear)), (std::vector<int>{128}));
}

TEST(Resize, BicubicOvershootIsClipped) {
  // Output 0 of 2 → 4 is 1.0882 · a - 0.0882 · b: below 0 for a = 0, above 255 for a = 255.
  EXPECT_EQ(red_row(resize(grey_row({0, 255}), 4, 1, Resample::Bicubic))[0], 0);
  EXPECT_EQ(red_row(resize(grey_row({255, 0}), 4, 1, Resample::Bicubic))[0], 255);
}

TEST(Resize, ConstantImagesStayConstant) {
  for (Resample f : {Resample::Bilinear, Resample::Bicubic})
    for (auto [w, h] : {std::pair{7, 3}, std::pair{40, 33}, std::pair{1, 1}, std::pair{301, 2}}) {
      Rgb8 image(13, 11);
      for (size_t i = 0; i < image.pixels.size(); ++i) image.pixels[i] = i % 3 == 0 ? 17 : (i % 3 == 1 ? 200 : 255);
      const Rgb8 out = resize(image, w, h, f);
      ASSERT_EQ(out.width, w);
      ASSERT_EQ(out.height, h);
      for (size_t i = 0; i < out.pixels.size(); ++i)
        ASSERT_EQ(out.pixels[i], image.pixels[i % 3]) << "filter " << static_cast<int>(f) << " " << w << "x" << h;
    }
}

TEST(Resize, SameSizeIsACopy) {
  const Rgb8 image = grey_row({1, 2, 3});
  EXPECT_EQ(resize(image, 3, 1, Resample::Bicubic).pixels, image.pixels);
}

TEST(Resize, VerticalPassMatchesHorizontalOnTheTransposedImage) {
  Rgb8 image(9, 14);
  for (size_t i = 0; i < image.pixels.size(); ++i) image.pixels[i] = static_cast<uint8_t>(i * 37 % 251);
  for (Resample f : {Resample::Bilinear, Resample::Bicubic}) {
    const Rgb8 rows = resize(image, 9, 5, f);
    const Rgb8 cols = resize(transpose(image), 5, 9, f);
    EXPECT_EQ(transpose(cols).pixels, rows.pixels);
  }
}

}  // namespace
}  // namespace saguaro::image
