// Format sniffing and the dimension limits shared by the PNG and JPEG checks (container.h).
#include <algorithm>

#include "container.h"
#include "saguaro/image/error.h"

namespace saguaro::image {

namespace {
constexpr uint8_t kPngSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
}  // namespace

ImageFormat sniff_format(const uint8_t* data, size_t size, const std::string& name) {
  if (size >= 8 && std::equal(kPngSignature, kPngSignature + 8, data)) return ImageFormat::Png;
  if (size >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF) return ImageFormat::Jpeg;
  throw ImageError(name + ": not a PNG or JPEG file (unknown signature)");
}

void check_dimensions(uint64_t width, uint64_t height, const std::string& name, const DecodeLimits& limits) {
  const std::string dims = std::to_string(width) + "x" + std::to_string(height);
  if (width == 0 || height == 0) throw ImageError(name + ": image has no pixels (" + dims + ")");
  if (width > limits.max_side || height > limits.max_side)
    throw ImageError(name + ": image is " + dims + " pixels, a side exceeds the limit of " +
                     std::to_string(limits.max_side));
  if (width * height > limits.max_pixels)
    throw ImageError(name + ": image is " + dims + " = " + std::to_string(width * height) +
                     " pixels, above the limit of " + std::to_string(limits.max_pixels));
}

}  // namespace saguaro::image
