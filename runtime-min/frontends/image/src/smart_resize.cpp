// Qwen2-VL smart_resize, transcribed from transformers' image_processing_qwen2_vl.py (smart_resize.h).
#include "saguaro/image/smart_resize.h"

#include <algorithm>
#include <cmath>

#include "saguaro/image/error.h"

namespace saguaro::image {

Size smart_resize(int height, int width, int factor, int64_t min_pixels, int64_t max_pixels, const std::string& name) {
  const std::string dims = std::to_string(width) + "x" + std::to_string(height);
  if (height < factor || width < factor)
    throw ImageError(name + ": image " + dims + " has a side below the resize factor " + std::to_string(factor));
  if (static_cast<double>(std::max(height, width)) / std::min(height, width) > 200)
    throw ImageError(name + ": image " + dims + " has an aspect ratio above 200");
  // std::nearbyint rounds half to even in the default rounding mode, like Python's round().
  int64_t h = static_cast<int64_t>(std::nearbyint(static_cast<double>(height) / factor)) * factor;
  int64_t w = static_cast<int64_t>(std::nearbyint(static_cast<double>(width) / factor)) * factor;
  if (h * w > max_pixels) {
    const double beta = std::sqrt(static_cast<double>(height) * width / max_pixels);
    h = static_cast<int64_t>(std::floor(height / beta / factor)) * factor;
    w = static_cast<int64_t>(std::floor(width / beta / factor)) * factor;
  } else if (h * w < min_pixels) {
    const double beta = std::sqrt(static_cast<double>(min_pixels) / (static_cast<double>(height) * width));
    h = static_cast<int64_t>(std::ceil(height * beta / factor)) * factor;
    w = static_cast<int64_t>(std::ceil(width * beta / factor)) * factor;
  }
  if (h <= 0 || w <= 0)
    throw ImageError(name + ": image " + dims + " cannot fit max_pixels " + std::to_string(max_pixels));
  return Size{static_cast<int>(h), static_cast<int>(w)};
}

}  // namespace saguaro::image
