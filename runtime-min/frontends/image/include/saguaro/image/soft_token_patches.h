// Gemma 4's tower input: the patches of a resized image and their positions on the patch grid.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "saguaro/image/rgb8.h"
#include "saguaro/image/soft_token_resize.h"
#include "saguaro/image/tensor.h"
#include "saguaro/image/to_chw.h"

namespace saguaro::image {

/// pixel_values and image_position_ids of one image as Gemma4ImageProcessor makes them, without
/// the padding to max_patches rows: the compiled tower takes the n real patches only.
struct SoftTokenPatches {
  int rows = 0, cols = 0;          // the patch grid: H / patch_size by W / patch_size
  Tensor patches;                  // [rows·cols, 3·patch²] in patchify_channels_last() order
  std::vector<int32_t> positions;  // [rows·cols, 2]: (x = column, y = row) of each patch
};

/// From an image already at its resized size: [H, W, 3] float32 in [0, 1], rescaled and not
/// normalized (the tower maps x to 2·(x − 0.5) itself). This is where `saguaro encode --pixels`
/// starts. Throws ImageError naming `name` for a size check_soft_token_grid() refuses or a value
/// outside [0, 1].
SoftTokenPatches soft_token_patches(const float* hwc, int height, int width, const SoftTokenBudget& budget,
                                    const std::string& name);

/// The same from a resized uint8 image, rescaled (and normalized, if the config asks) by `norm`.
SoftTokenPatches soft_token_patches(const Rgb8& resized, const Normalization& norm, const SoftTokenBudget& budget,
                                    const std::string& name);

}  // namespace saguaro::image
