// Decoding PNG and JPEG files into RGB pixels the way Pillow's Image.open(f).convert("RGB") does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "saguaro/image/rgb8.h"

namespace saguaro::image {

/// Bounds checked before anything proportional to the image is allocated.
struct DecodeLimits {
  uint64_t max_file_bytes = uint64_t{256} << 20;
  uint64_t max_pixels = uint64_t{1} << 26;  // 8192×8192
  uint32_t max_side = 32768;
};

/// Reads and decodes a PNG or JPEG file. Grey is replicated into R, G and B; alpha is dropped
/// without compositing; palettes are looked up; 16-bit samples keep their high byte, except 16-bit
/// grey without alpha, which Pillow clips to 255 (docs/image.md). Throws ImageError whose message
/// starts with `path`.
Rgb8 decode_image(const std::string& path, const DecodeLimits& limits = {});

/// Decodes an image held in memory; `name` starts every error message.
Rgb8 decode_image_memory(const uint8_t* data, size_t size, const std::string& name,
                         const DecodeLimits& limits = {});

/// The largest single allocation stb_image asked for on this thread since the last reset; lets
/// tests prove that a lying header is refused before the decoder allocates anything large.
size_t largest_decoder_allocation();
void reset_decoder_allocation_stats();

}  // namespace saguaro::image
