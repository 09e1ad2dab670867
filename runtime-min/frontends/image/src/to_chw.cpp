// HWC uint8 → CHW float32 with rescale and normalize (to_chw.h).
#include "saguaro/image/to_chw.h"

#include <cstddef>

namespace saguaro::image {

void to_chw(const Rgb8& image, const Normalization& norm, float* out) {
  const size_t plane = static_cast<size_t>(image.width) * image.height;
  for (int c = 0; c < 3; ++c) {
    // One lookup table per channel: there are only 256 inputs, and the table keeps HF's exact
    // float64-then-float32 rounding without paying for it per pixel.
    float table[256];
    for (int v = 0; v < 256; ++v) {
      float x = norm.rescale ? static_cast<float>(v * norm.rescale_factor) : static_cast<float>(v);
      if (norm.normalize) x = (x - norm.mean[c]) / norm.std[c];
      table[v] = x;
    }
    const uint8_t* src = image.pixels.data() + c;
    float* dst = out + c * plane;
    for (size_t i = 0; i < plane; ++i) dst[i] = table[src[3 * i]];
  }
}

}  // namespace saguaro::image
