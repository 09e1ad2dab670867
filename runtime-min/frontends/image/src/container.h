// Structural checks of PNG and JPEG files, run before the pixel decoder sees them.
//
// stb_image accepts some broken files (a JPEG cut mid-scan decodes into grey rows) and reports
// others with terse codes. Walking the container first gives one-line errors that say what is
// wrong and where, and lets the header's dimensions be checked before any large allocation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "saguaro/image/decode.h"

namespace saguaro::image {

enum class ImageFormat { Png, Jpeg };

/// What the container says about the image.
struct ImageHeader {
  ImageFormat format = ImageFormat::Png;
  uint32_t width = 0;
  uint32_t height = 0;
  int png_bit_depth = 0;   // PNG only
  int png_color_type = 0;  // PNG only: 0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA
};

/// Identifies the format from the signature; throws ImageError naming the file otherwise.
ImageFormat sniff_format(const uint8_t* data, size_t size, const std::string& name);

/// Walks the chunks: signature, IHDR first, CRCs, IEND present, dimensions within `limits`, and
/// enough IDAT bytes to inflate to the claimed pixels (deflate expands at most 1032:1).
ImageHeader check_png(const uint8_t* data, size_t size, const std::string& name, const DecodeLimits& limits);

/// Walks the markers: SOI, a baseline/progressive Huffman SOF with sane dimensions within
/// `limits`, every segment complete, and EOI reached after the entropy-coded scans.
ImageHeader check_jpeg(const uint8_t* data, size_t size, const std::string& name, const DecodeLimits& limits);

/// Throws ImageError when width×height breaks `limits`.
void check_dimensions(uint64_t width, uint64_t height, const std::string& name, const DecodeLimits& limits);

}  // namespace saguaro::image
