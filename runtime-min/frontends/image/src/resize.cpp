// Two-pass fixed-point resampling with Pillow's rounding (resize.h).
#include "saguaro/image/resize.h"

#include <algorithm>

#include "saguaro/image/error.h"

namespace saguaro::image {

namespace {

constexpr int32_t kHalf = 1 << (kPrecisionBits - 1);

/// Pillow's clip8: drop the fraction (arithmetic shift, i.e. floor) and clamp to 0..255.
inline uint8_t clip8(int32_t v) { return static_cast<uint8_t>(std::clamp(v >> kPrecisionBits, 0, 255)); }

Rgb8 resize_horizontal(const Rgb8& in, int width, Resample filter) {
  const AxisCoeffs c = pillow_axis_coeffs(in.width, width, filter);
  Rgb8 out(width, in.height);
  for (int y = 0; y < in.height; ++y) {
    const uint8_t* src = in.row(y);
    uint8_t* dst = out.row(y);
    for (int x = 0; x < width; ++x) {
      const int32_t* k = &c.weights[static_cast<size_t>(x) * c.taps];
      const uint8_t* p = src + static_cast<size_t>(c.first[x]) * 3;
      int32_t r = kHalf, g = kHalf, b = kHalf;
      for (int t = 0; t < c.count[x]; ++t, p += 3) {
        r += p[0] * k[t];
        g += p[1] * k[t];
        b += p[2] * k[t];
      }
      dst[3 * x + 0] = clip8(r);
      dst[3 * x + 1] = clip8(g);
      dst[3 * x + 2] = clip8(b);
    }
  }
  return out;
}

Rgb8 resize_vertical(const Rgb8& in, int height, Resample filter) {
  const AxisCoeffs c = pillow_axis_coeffs(in.height, height, filter);
  Rgb8 out(in.width, height);
  const size_t row_values = static_cast<size_t>(in.width) * 3;
  std::vector<int32_t> acc(row_values);
  for (int y = 0; y < height; ++y) {
    // Row by row so the inner loop runs over contiguous bytes and vectorizes.
    std::fill(acc.begin(), acc.end(), kHalf);
    const int32_t* k = &c.weights[static_cast<size_t>(y) * c.taps];
    for (int t = 0; t < c.count[y]; ++t) {
      const uint8_t* src = in.row(c.first[y] + t);
      const int32_t weight = k[t];
      for (size_t i = 0; i < row_values; ++i) acc[i] += src[i] * weight;
    }
    uint8_t* dst = out.row(y);
    for (size_t i = 0; i < row_values; ++i) dst[i] = clip8(acc[i]);
  }
  return out;
}

}  // namespace

Rgb8 resize(const Rgb8& image, int width, int height, Resample filter) {
  if (width <= 0 || height <= 0 || image.width <= 0 || image.height <= 0)
    throw ImageError("resize: cannot resize " + std::to_string(image.width) + "x" + std::to_string(image.height) +
                     " to " + std::to_string(width) + "x" + std::to_string(height));
  if (width == image.width && height == image.height) return image;
  if (height == image.height) return resize_horizontal(image, width, filter);
  if (width == image.width) return resize_vertical(image, height, filter);
  return resize_vertical(resize_horizontal(image, width, filter), height, filter);
}

}  // namespace saguaro::image
