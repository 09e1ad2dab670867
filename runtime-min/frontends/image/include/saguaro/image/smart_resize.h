// Qwen2-VL's aspect-preserving "smart resize".
#pragma once

#include <cstdint>
#include <string>

namespace saguaro::image {

struct Size {
  int height = 0;
  int width = 0;
};

/// Qwen2VLImageProcessor's smart_resize: both sides rounded (half to even, as Python's round) to
/// a multiple of `factor` (= patch · merge), then scaled by one common factor so that the pixel
/// count lies in [min_pixels, max_pixels] (floor when shrinking, ceil when growing). Throws
/// ImageError, prefixed with `name`, for a side below `factor` or an aspect ratio above 200.
Size smart_resize(int height, int width, int factor, int64_t min_pixels, int64_t max_pixels, const std::string& name);

}  // namespace saguaro::image
