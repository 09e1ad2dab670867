// decode_image: size checks, container checks, then stb_image (decode.h).
#include "saguaro/image/decode.h"

#include <algorithm>
#include <cstdint>

#include "container.h"
#include "saguaro/image/error.h"
#include "file_bytes.h"
#include "stb_decoder.h"

namespace saguaro::image {

Rgb8 decode_image(const std::string& path, const DecodeLimits& limits) {
  const std::vector<uint8_t> bytes = read_file_bytes(path, limits.max_file_bytes);
  return decode_image_memory(bytes.data(), bytes.size(), path, limits);
}

Rgb8 decode_image_memory(const uint8_t* data, size_t size, const std::string& name, const DecodeLimits& limits) {
  if (size == 0) throw ImageError(name + ": empty file (0 bytes)");
  if (size > limits.max_file_bytes || size > INT32_MAX)
    throw ImageError(name + ": file is " + std::to_string(size) + " bytes, above the limit of " +
                     std::to_string(std::min<uint64_t>(limits.max_file_bytes, INT32_MAX)));
  const ImageHeader header = sniff_format(data, size, name) == ImageFormat::Png
                                 ? check_png(data, size, name, limits)
                                 : check_jpeg(data, size, name, limits);
  return decode_with_stb(data, size, header, name);
}

}  // namespace saguaro::image
