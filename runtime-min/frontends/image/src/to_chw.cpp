// uint8 pixels → float32 with rescale and normalize, planar or channels-last (to_chw.h).
#include "saguaro/image/to_chw.h"

#include <array>
#include <cstddef>

namespace saguaro::image {

namespace {

/// The value each of the 256 inputs becomes, per channel: there are only 256 inputs, and the table
/// keeps HF's exact float64-then-float32 rounding without paying for it per pixel.
std::array<std::array<float, 256>, 3> value_tables(const Normalization& norm) {
  std::array<std::array<float, 256>, 3> tables{};
  for (int c = 0; c < 3; ++c)
    for (int v = 0; v < 256; ++v) {
      float x = norm.rescale ? static_cast<float>(v * norm.rescale_factor) : static_cast<float>(v);
      if (norm.normalize) x = (x - norm.mean[c]) / norm.std[c];
      tables[c][v] = x;
    }
  return tables;
}

}  // namespace

void to_chw(const Rgb8& image, const Normalization& norm, float* out) {
  const auto tables = value_tables(norm);
  const size_t plane = static_cast<size_t>(image.width) * image.height;
  for (int c = 0; c < 3; ++c) {
    const uint8_t* src = image.pixels.data() + c;
    float* dst = out + c * plane;
    for (size_t i = 0; i < plane; ++i) dst[i] = tables[c][src[3 * i]];
  }
}

void to_hwc(const Rgb8& image, const Normalization& norm, float* out) {
  const auto tables = value_tables(norm);
  const size_t values = image.pixels.size();
  for (size_t i = 0; i < values; ++i) out[i] = tables[i % 3][image.pixels[i]];
}

}  // namespace saguaro::image
