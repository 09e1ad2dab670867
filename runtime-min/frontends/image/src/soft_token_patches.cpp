// Patches and positions of a Gemma 4 image (soft_token_patches.h).
#include "saguaro/image/soft_token_patches.h"

#include "saguaro/image/error.h"
#include "saguaro/image/patchify.h"

namespace saguaro::image {

namespace {

/// convert_image_to_patches, then the positions of the meshgrid (indexing "xy") transformers
/// stacks as [x, y]: patch i sits at column i % cols, row i / cols. The size is checked already.
SoftTokenPatches cut(const float* hwc, int height, int width, const SoftTokenBudget& b) {
  SoftTokenPatches out;
  out.rows = height / b.patch_size;
  out.cols = width / b.patch_size;
  const int64_t n = int64_t{out.rows} * out.cols, dim = int64_t{3} * b.patch_size * b.patch_size;
  out.patches.shape = {n, dim};
  out.patches.data.resize(static_cast<size_t>(n * dim));
  patchify_channels_last(hwc, height, width, b.patch_size, out.patches.data.data());
  out.positions.reserve(static_cast<size_t>(2 * n));
  for (int y = 0; y < out.rows; ++y)
    for (int x = 0; x < out.cols; ++x) out.positions.insert(out.positions.end(), {x, y});
  return out;
}

}  // namespace

SoftTokenPatches soft_token_patches(const float* hwc, int height, int width, const SoftTokenBudget& b,
                                    const std::string& name) {
  check_soft_token_grid(height, width, b, name);
  const size_t values = static_cast<size_t>(height) * width * 3;
  for (size_t i = 0; i < values; ++i)
    if (!(hwc[i] >= 0.0f && hwc[i] <= 1.0f)) {
      const size_t pixel = i / 3;
      throw ImageError(name + ": pixel value " + std::to_string(hwc[i]) + " at row " + std::to_string(pixel / width) +
                       ", column " + std::to_string(pixel % width) + ", channel " + std::to_string(i % 3) +
                       " is outside [0, 1]");
    }
  return cut(hwc, height, width, b);
}

SoftTokenPatches soft_token_patches(const Rgb8& resized, const Normalization& norm, const SoftTokenBudget& b,
                                    const std::string& name) {
  check_soft_token_grid(resized.height, resized.width, b, name);
  std::vector<float> hwc(resized.pixels.size());
  to_hwc(resized, norm, hwc.data());
  return cut(hwc.data(), resized.height, resized.width, b);
}

}  // namespace saguaro::image
