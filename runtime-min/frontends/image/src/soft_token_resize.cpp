// Gemma 4's resize policy, from transformers' image_processing_pil_gemma4.py (soft_token_resize.h).
#include "saguaro/image/soft_token_resize.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "saguaro/image/decode.h"
#include "saguaro/image/error.h"

namespace saguaro::image {

std::string soft_token_budget_problem(const SoftTokenBudget& b) {
  const std::string n = std::to_string(b.max_soft_tokens);
  if (std::find(kSupportedSoftTokens.begin(), kSupportedSoftTokens.end(), b.max_soft_tokens) ==
      kSupportedSoftTokens.end()) {
    std::string supported;
    for (int s : kSupportedSoftTokens) supported += (supported.empty() ? "" : ", ") + std::to_string(s);
    return n + " is not supported (" + supported + ")";
  }
  // A resized image is never larger than what the decoder may produce.
  const uint64_t max_pixels = DecodeLimits{}.max_pixels;
  if (b.patch_size < 1 || b.pooling_kernel_size < 1 ||
      static_cast<uint64_t>(b.max_patches() * b.patch_size * b.patch_size) > max_pixels)
    return n + " with pooling_kernel_size " + std::to_string(b.pooling_kernel_size) + " and patch_size " +
           std::to_string(b.patch_size) + " allows resized images above the decoder's limit of " +
           std::to_string(max_pixels) + " pixels";
  return "";
}

Size soft_token_size(int height, int width, const SoftTokenBudget& b) {
  // The same double arithmetic as Python's: sqrt of a true division, then floor.
  const double target_px = static_cast<double>(b.max_patches()) * b.patch_size * b.patch_size;
  const double factor = std::sqrt(target_px / (static_cast<double>(height) * width));
  const int side = b.side();
  int h = static_cast<int>(std::floor(factor * height / side)) * side;
  int w = static_cast<int>(std::floor(factor * width / side)) * side;
  // Both sides cannot round to 0: factor² · height · width = max_soft_tokens · side², so one
  // side is at least side · sqrt(max_soft_tokens).
  const int max_side = b.max_soft_tokens * side;
  if (h == 0) {
    h = side;
    w = static_cast<int>(std::min<int64_t>(int64_t{width / height} * side, max_side));
  } else if (w == 0) {
    w = side;
    h = static_cast<int>(std::min<int64_t>(int64_t{height / width} * side, max_side));
  }
  return Size{h, w};
}

void check_soft_token_grid(int height, int width, const SoftTokenBudget& b, const std::string& name) {
  const std::string dims = std::to_string(width) + "x" + std::to_string(height);
  const int side = b.side();
  if (height <= 0 || width <= 0 || height % side != 0 || width % side != 0)
    throw ImageError(name + ": image " + dims + " is not a resized Gemma 4 image: both sides must be multiples of " +
                     std::to_string(side) + " (pooling_kernel_size x patch_size)");
  const int64_t tokens = int64_t{height / side} * (width / side);
  if (tokens > b.max_soft_tokens)
    throw ImageError(name + ": image " + dims + " makes " + std::to_string(tokens) +
                     " soft tokens, above max_soft_tokens " + std::to_string(b.max_soft_tokens));
}

}  // namespace saguaro::image
