// An 8-bit RGB image in memory: what the decoder produces and the resizer consumes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace saguaro::image {

/// H×W×3 pixels, rows top to bottom, each pixel R, G, B (numpy's uint8 [H, W, 3]).
struct Rgb8 {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> pixels;

  Rgb8() = default;
  Rgb8(int width, int height);  // zero-filled

  uint8_t* row(int y) { return pixels.data() + static_cast<size_t>(y) * width * 3; }
  const uint8_t* row(int y) const { return pixels.data() + static_cast<size_t>(y) * width * 3; }
};

/// Copies the rectangle starting at (x, y) of size w×h, clipped to the image as a numpy slice
/// image[y:y+h, x:x+w] is (so the last pan-and-scan crop may be narrower than the others).
Rgb8 crop(const Rgb8& image, int x, int y, int w, int h);

}  // namespace saguaro::image
