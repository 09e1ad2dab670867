// libFuzzer target: the image reader (PNG chunk walk, JPEG marker walk, stb_image) and, on what
// decodes, the resize / normalize / patchify path at a small size, and Gemma 4's soft-token path at a
// small budget (the size rule must land on the grid for every decoded shape). Inputs that start like
// a .npy go to the resized-pixels reader of `--pixels` instead.
#include <cstdint>
#include <cstring>

#include "saguaro/image/decode.h"
#include "saguaro/image/error.h"
#include "saguaro/image/pan_and_scan.h"
#include "saguaro/image/pixels_npy.h"
#include "saguaro/image/preprocess.h"
#include "saguaro/image/resize.h"
#include "saguaro/image/soft_token_patches.h"

namespace {

/// `--pixels`: read, then cut into patches when the size is on the small budget's grid.
int fuzz_pixels_npy(const uint8_t* data, size_t size) {
  using namespace saguaro::image;
  const SoftTokenBudget small{70, 1, 8};
  try {
    const PixelsNpy p = read_pixels_npy_memory(data, size, "fuzz", uint64_t{1} << 16);
    const SoftTokenPatches patches =
        p.is_float ? soft_token_patches(p.float32.data(), p.height, p.width, small, "fuzz")
                   : soft_token_patches(p.uint8, Normalization{}, small, "fuzz");
    if (patches.patches.shape[0] > 70) __builtin_trap();
  } catch (const ImageError&) {
  }
  return 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace saguaro::image;
  if (size >= 6 && std::memcmp(data, "\x93NUMPY", 6) == 0) return fuzz_pixels_npy(data, size);
  // Lower limits than the defaults keep each run fast; the checks are the same code.
  DecodeLimits limits;
  limits.max_pixels = uint64_t{1} << 18;
  limits.max_side = 4096;
  Rgb8 image;
  try {
    image = decode_image_memory(data, size, "fuzz", limits);
  } catch (const ImageError&) {
    return 0;
  }
  if (image.width <= 0 || image.height <= 0 ||
      image.pixels.size() != static_cast<size_t>(image.width) * image.height * 3)
    __builtin_trap();
  ImageConfig config;
  config.size = {28, 42};
  config.patch_size = 14;
  config.resample = size % 2 ? Resample::Bilinear : Resample::Bicubic;
  const Tensor t = preprocess(image, config, "fuzz");
  if (t.shape.size() != 2 || t.shape[0] != 6 || t.data.size() != 6u * 588) __builtin_trap();
  (void)pan_and_scan_crops(image.height, image.width, PanAndScanConfig{});
  // 70 soft tokens of one 8-pixel patch each: at most 4480 pixels, so every input stays fast.
  const SoftTokenBudget small{70, 1, 8};
  const Size s = soft_token_size(image.height, image.width, small);
  const SoftTokenPatches p =
      soft_token_patches(resize(image, s.width, s.height, Resample::Bicubic), Normalization{}, small, "fuzz");
  if (p.patches.shape[0] > 70 || p.positions.size() != static_cast<size_t>(2 * p.patches.shape[0])) __builtin_trap();
  return 0;
}
