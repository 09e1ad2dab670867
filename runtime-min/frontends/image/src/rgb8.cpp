// Construction and cropping of Rgb8 images.
#include "saguaro/image/rgb8.h"

#include <algorithm>
#include <cstring>

namespace saguaro::image {

Rgb8::Rgb8(int w, int h) : width(w), height(h), pixels(static_cast<size_t>(w) * h * 3) {}

Rgb8 crop(const Rgb8& image, int x, int y, int w, int h) {
  const int x0 = std::clamp(x, 0, image.width), x1 = std::clamp(x + w, x0, image.width);
  const int y0 = std::clamp(y, 0, image.height), y1 = std::clamp(y + h, y0, image.height);
  Rgb8 out(x1 - x0, y1 - y0);
  for (int row = y0; row < y1; ++row)
    std::memcpy(out.row(row - y0), image.row(row) + static_cast<size_t>(x0) * 3, static_cast<size_t>(out.width) * 3);
  return out;
}

}  // namespace saguaro::image
