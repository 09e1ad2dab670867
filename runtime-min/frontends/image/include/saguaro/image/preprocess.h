// The whole image pipeline of a vision tower: crops, resize, rescale, normalize, patches.
#pragma once

#include <string>

#include "saguaro/image/config.h"
#include "saguaro/image/rgb8.h"
#include "saguaro/image/tensor.h"

namespace saguaro::image {

/// What the HF processor named in `config` returns as pixel_values for one image:
///  - without patch_size: [n, 3, H, W] float32, n = 1 + the pan-and-scan crops (Gemma 3);
///  - with patch_size: [n · (H/patch) · (W/patch), 3 · temporal · patch²], the images'
///    patches one after another in patchify()'s order (Qwen2-VL's flattened pixel_values).
///  - Gemma 4: [(H/patch) · (W/patch), 3 · patch²] in patchify_channels_last()'s order, without
///    the padding rows (soft_token_patches() gives the positions too).
/// Resizing works on uint8 pixels exactly like PIL (resize.h). Throws ImageError prefixed with
/// `name` when the image cannot be brought to a valid size.
Tensor preprocess(const Rgb8& image, const ImageConfig& config, const std::string& name);

/// The resized (and cropped) uint8 images before normalization, for inspection and tests.
std::vector<Rgb8> resized_images(const Rgb8& image, const ImageConfig& config, const std::string& name);

/// preprocess() of images resized_images() returned: the rescale, normalize and patch steps.
Tensor pixel_values(const std::vector<Rgb8>& resized, const ImageConfig& config, const std::string& name);

}  // namespace saguaro::image
