// libFuzzer target: the image reader (PNG chunk walk, JPEG marker walk, stb_image) and, on what
// decodes, the resize / normalize / patchify path at a small size.
#include <cstdint>

#include "saguaro/image/decode.h"
#include "saguaro/image/error.h"
#include "saguaro/image/pan_and_scan.h"
#include "saguaro/image/preprocess.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace saguaro::image;
  // Lower limits than the defaults keep each run fast; the checks are the same code.
  DecodeLimits limits;
  limits.max_pixels = uint64_t{1} << 22;
  limits.max_side = 8192;
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
  return 0;
}
