// Rescaling and per-channel normalization of uint8 pixels into float32, planar or channels-last.
#pragma once

#include <array>

#include "saguaro/image/rgb8.h"

namespace saguaro::image {

/// What HF's rescale() and normalize() do, in their precision: v * factor in double rounded to
/// float32, then (x - mean[c]) / std[c] in float32.
struct Normalization {
  bool rescale = true;
  double rescale_factor = 1.0 / 255.0;
  bool normalize = true;
  std::array<float, 3> mean = {0.5f, 0.5f, 0.5f};
  std::array<float, 3> std = {0.5f, 0.5f, 0.5f};
};

/// Writes the image as [3, H, W] float32 at `out` (3·H·W values).
void to_chw(const Rgb8& image, const Normalization& norm, float* out);

/// The same values in the image's own layout, [H, W, 3] (what Gemma 4's patches are cut from).
void to_hwc(const Rgb8& image, const Normalization& norm, float* out);

}  // namespace saguaro::image
