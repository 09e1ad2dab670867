// The pixel decoder behind decode_image: Debian's stb_image, restricted to PNG and JPEG.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "container.h"
#include "saguaro/image/rgb8.h"

namespace saguaro::image {

/// Decodes a file whose container `header` has already been checked. Every allocation stb makes
/// is refused above a budget derived from the header's dimensions (a few bytes per pixel).
Rgb8 decode_with_stb(const uint8_t* data, size_t size, const ImageHeader& header, const std::string& name);

}  // namespace saguaro::image
