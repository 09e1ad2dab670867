// Reading an already resized image from a NumPy .npy file: where `--pixels` starts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "saguaro/image/rgb8.h"

namespace saguaro::image {

/// An [H, W, 3] image as stored: uint8 pixels still to be rescaled, or float32 values already
/// rescaled (in [0, 1] for Gemma 4; soft_token_patches() checks that).
struct PixelsNpy {
  bool is_float = false;
  Rgb8 uint8;                   // when !is_float
  std::vector<float> float32;   // when is_float: height · width · 3 values, row-major
  int height = 0, width = 0;
};

/// Reads a version 1, 2 or 3 .npy holding a C-order [H, W, 3] array of dtype uint8 ('|u1') or
/// little-endian float32 ('<f4'), at most `max_pixels` pixels. Throws ImageError naming `path` for
/// anything else: another dtype or rank, Fortran order, a header or data of the wrong length.
PixelsNpy read_pixels_npy(const std::string& path, uint64_t max_pixels = uint64_t{1} << 26);

/// The same from bytes in memory; `name` starts every error message.
PixelsNpy read_pixels_npy_memory(const uint8_t* data, size_t size, const std::string& name,
                                 uint64_t max_pixels = uint64_t{1} << 26);

}  // namespace saguaro::image
