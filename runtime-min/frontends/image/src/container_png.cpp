// PNG chunk walk: signature, IHDR, CRCs, IDAT volume and IEND (container.h).
#include <array>

#include "container.h"
#include "saguaro/image/error.h"

namespace saguaro::image {

namespace {

// Deflate encodes at most 258 bytes per ~2 bits: no stream inflates by more than 1032:1.
constexpr uint64_t kMaxInflateRatio = 1032;

uint32_t read_be32(const uint8_t* p) {
  return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3];
}

uint32_t crc32(const uint8_t* data, size_t size) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t n = 0; n < 256; ++n) {
      uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < size; ++i) c = table[(c ^ data[i]) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

/// Samples per pixel of a PNG colour type, or 0 when the (type, depth) pair is invalid.
int png_channels(int color_type, int depth) {
  switch (color_type) {
    case 0: return (depth == 1 || depth == 2 || depth == 4 || depth == 8 || depth == 16) ? 1 : 0;
    case 3: return (depth == 1 || depth == 2 || depth == 4 || depth == 8) ? 1 : 0;
    case 2: return (depth == 8 || depth == 16) ? 3 : 0;
    case 4: return (depth == 8 || depth == 16) ? 2 : 0;
    case 6: return (depth == 8 || depth == 16) ? 4 : 0;
    default: return 0;
  }
}

std::string chunk_name(const uint8_t* type) {
  std::string s;
  for (int i = 0; i < 4; ++i) s += (type[i] >= 0x20 && type[i] < 0x7F) ? static_cast<char>(type[i]) : '?';
  return s;
}

}  // namespace

ImageHeader check_png(const uint8_t* data, size_t size, const std::string& name, const DecodeLimits& limits) {
  ImageHeader header;
  header.format = ImageFormat::Png;
  uint64_t idat_bytes = 0;
  int channels = 0;
  size_t pos = 8;
  for (bool first = true;; first = false) {
    const std::string where = " at offset " + std::to_string(pos);
    if (size - pos < 8)
      throw ImageError(name + ": PNG is truncated: the file ends at byte " + std::to_string(size) +
                       " without an IEND chunk");
    const uint32_t length = read_be32(data + pos);
    const uint8_t* type = data + pos + 4;
    const std::string tname = chunk_name(type);
    if (length > 0x7FFFFFFFu) throw ImageError(name + ": PNG chunk " + tname + where + " has an invalid length");
    if (size - pos - 8 < uint64_t{length} + 4)
      throw ImageError(name + ": PNG is truncated: chunk " + tname + where + " needs " +
                       std::to_string(uint64_t{length} + 12) + " bytes, " + std::to_string(size - pos) +
                       " remain");
    const uint8_t* body = type + 4;
    if (crc32(type, length + 4) != read_be32(body + length))
      throw ImageError(name + ": PNG is corrupt: bad CRC in chunk " + tname + where);
    if (first) {
      if (tname != "IHDR" || length != 13) throw ImageError(name + ": PNG is corrupt: the first chunk is not IHDR");
      header.width = read_be32(body);
      header.height = read_be32(body + 4);
      header.png_bit_depth = body[8];
      header.png_color_type = body[9];
      channels = png_channels(body[9], body[8]);
      if (channels == 0 || body[10] != 0 || body[11] != 0 || body[12] > 1)
        throw ImageError(name + ": PNG is corrupt: invalid IHDR (bit depth " + std::to_string(body[8]) +
                         ", colour type " + std::to_string(body[9]) + ")");
      check_dimensions(header.width, header.height, name, limits);
    } else if (tname == "IDAT") {
      idat_bytes += length;
    } else if (tname == "IEND") {
      break;
    }
    pos += uint64_t{length} + 12;
  }
  const uint64_t pixel_bytes = uint64_t{header.width} * header.height * channels * header.png_bit_depth / 8;
  if (pixel_bytes > idat_bytes * kMaxInflateRatio + 1024)
    throw ImageError(name + ": PNG is truncated: " + std::to_string(idat_bytes) + " bytes of IDAT cannot hold " +
                     std::to_string(header.width) + "x" + std::to_string(header.height) + " pixels");
  return header;
}

}  // namespace saguaro::image
