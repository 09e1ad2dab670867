// JPEG marker walk: SOI, SOF, complete segments, defined tables, scans and EOI (container.h).
//
// Besides truncation, the walk refuses what Debian's stb_image 2.27 mishandles instead of
// rejecting: Huffman tables with more than 256 codes (it overflows its symbol table), and scans
// that use a Huffman or quantization table no DHT/DQT defined (it reads uninitialized heap, so
// the pixels, and with a Huffman table even the memory it reads, depend on garbage).
#include <cstring>
#include <vector>

#include "container.h"
#include "saguaro/image/error.h"

namespace saguaro::image {

namespace {

constexpr uint8_t kSOI = 0xD8, kEOI = 0xD9, kSOS = 0xDA, kDHT = 0xC4, kDQT = 0xDB, kTEM = 0x01;
constexpr uint8_t kBaseline = 0xC0, kExtended = 0xC1, kProgressive = 0xC2;

bool is_restart(uint8_t m) { return m >= 0xD0 && m <= 0xD7; }

/// SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC), which share the range.
bool is_sof(uint8_t m) { return m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC; }

std::string hex_marker(uint8_t m) {
  const char* digits = "0123456789ABCDEF";
  return std::string("FF") + digits[m >> 4] + digits[m & 15];
}

/// Offset of the first marker after entropy-coded data starting at `pos` (stuffed FF00 bytes and
/// restart markers belong to the scan), or `size` when the data runs to the end of the file.
size_t skip_entropy_coded(const uint8_t* data, size_t size, size_t pos) {
  while (pos < size) {
    const void* ff = std::memchr(data + pos, 0xFF, size - pos);
    if (!ff) return size;
    pos = static_cast<const uint8_t*>(ff) - data;
    if (pos + 1 >= size) return size;
    const uint8_t next = data[pos + 1];
    if (next == 0x00 || is_restart(next) || next == 0xFF)
      pos += next == 0xFF ? 1 : 2;
    else
      return pos;
  }
  return size;
}

/// What the segments so far have defined.
struct JpegState {
  std::string name;
  uint8_t sof = 0;                      // 0 until the frame header
  std::vector<uint8_t> component_ids;   // from SOF
  std::vector<uint8_t> component_qt;    // quantization table of each component
  bool dc[4] = {}, ac[4] = {}, qt[4] = {};
  bool seen_scan = false;

  [[noreturn]] void corrupt(const std::string& what) const {
    throw ImageError(name + ": JPEG is corrupt: " + what);
  }
};

/// DHT: tables of a class/id byte, 16 code counts and that many symbols.
void read_dht(const uint8_t* body, size_t size, JpegState& s) {
  size_t pos = 0;
  while (pos < size) {
    if (size - pos < 17) s.corrupt("Huffman table (DHT) is cut short");
    const int table_class = body[pos] >> 4, id = body[pos] & 15;
    if (table_class > 1 || id > 3) s.corrupt("Huffman table (DHT) has class " + std::to_string(table_class) +
                                            " and id " + std::to_string(id));
    size_t codes = 0;
    for (int i = 1; i <= 16; ++i) codes += body[pos + i];
    if (codes > 256)
      s.corrupt("Huffman table (DHT) declares " + std::to_string(codes) + " codes, at most 256 exist");
    if (size - pos - 17 < codes) s.corrupt("Huffman table (DHT) is cut short");
    (table_class == 0 ? s.dc : s.ac)[id] = true;
    pos += 17 + codes;
  }
}

/// DQT: tables of a precision/id byte and 64 one- or two-byte entries.
void read_dqt(const uint8_t* body, size_t size, JpegState& s) {
  size_t pos = 0;
  while (pos < size) {
    const int precision = body[pos] >> 4, id = body[pos] & 15;
    if (precision > 1 || id > 3) s.corrupt("quantization table (DQT) has precision " + std::to_string(precision) +
                                          " and id " + std::to_string(id));
    const size_t entries = precision ? 128 : 64;
    if (size - pos - 1 < entries) s.corrupt("quantization table (DQT) is cut short");
    s.qt[id] = true;
    pos += 1 + entries;
  }
}

/// SOF: precision, height, width, then id, sampling and quantization table of each component.
void read_sof(uint8_t marker, const uint8_t* body, size_t size, JpegState& s, ImageHeader& header,
              const DecodeLimits& limits) {
  if (marker != kBaseline && marker != kExtended && marker != kProgressive)
    throw ImageError(s.name + ": JPEG coding " + hex_marker(marker) +
                     " is not supported (only baseline and progressive Huffman JPEG)");
  if (s.sof) s.corrupt("a second frame header (SOF)");
  if (size < 6 || size != 6 + 3 * size_t{body[5]}) s.corrupt("the frame header (SOF) has the wrong length");
  header.height = uint32_t{body[1]} << 8 | body[2];
  header.width = uint32_t{body[3]} << 8 | body[4];
  if (header.height == 0)
    throw ImageError(s.name + ": JPEG with the height in a DNL marker (height 0 in SOF) is not supported");
  check_dimensions(header.width, header.height, s.name, limits);
  for (size_t i = 0; i < body[5]; ++i) {
    s.component_ids.push_back(body[6 + 3 * i]);
    s.component_qt.push_back(body[8 + 3 * i]);
    if (body[8 + 3 * i] > 3) s.corrupt("a component uses quantization table " + std::to_string(body[8 + 3 * i]));
  }
  s.sof = marker;
}

/// SOS: every table the scan decodes with must have been defined.
void check_sos(const uint8_t* body, size_t size, JpegState& s) {
  if (!s.sof) s.corrupt("scan (SOS) before the frame header (SOF)");
  if (size < 1 || size != 4 + 2 * size_t{body[0]}) s.corrupt("the scan header (SOS) has the wrong length");
  const int spectral_start = body[1 + 2 * body[0]];
  const int refine = body[3 + 2 * body[0]] >> 4;
  const bool progressive = s.sof == kProgressive;
  const bool uses_dc = !progressive || (spectral_start == 0 && refine == 0);
  const bool uses_ac = !progressive || spectral_start > 0;
  for (size_t i = 0; i < body[0]; ++i) {
    const uint8_t id = body[1 + 2 * i], dc = body[2 + 2 * i] >> 4, ac = body[2 + 2 * i] & 15;
    size_t c = 0;
    while (c < s.component_ids.size() && s.component_ids[c] != id) ++c;
    if (c == s.component_ids.size()) s.corrupt("the scan names component " + std::to_string(id) + " not in SOF");
    if (!s.qt[s.component_qt[c]])
      s.corrupt("quantization table " + std::to_string(s.component_qt[c]) + " is used but not defined (DQT)");
    if (uses_dc && (dc > 3 || !s.dc[dc])) s.corrupt("Huffman table DC" + std::to_string(dc) + " is used but not defined");
    if (uses_ac && (ac > 3 || !s.ac[ac])) s.corrupt("Huffman table AC" + std::to_string(ac) + " is used but not defined");
  }
  s.seen_scan = true;
}

}  // namespace

ImageHeader check_jpeg(const uint8_t* data, size_t size, const std::string& name, const DecodeLimits& limits) {
  ImageHeader header;
  header.format = ImageFormat::Jpeg;
  JpegState s;
  s.name = name;
  const std::string truncated = name + ": JPEG is truncated: ";
  size_t pos = 2;  // after SOI
  while (true) {
    // Like libjpeg, tolerate junk bytes before a marker; any run of FF is fill.
    while (pos < size && data[pos] != 0xFF) ++pos;
    while (pos < size && data[pos] == 0xFF) ++pos;
    if (pos >= size) throw ImageError(truncated + "the file ends at byte " + std::to_string(size) + " before EOI");
    const uint8_t marker = data[pos++];
    const std::string where = " at offset " + std::to_string(pos - 2);
    if (marker == kEOI) {
      if (!s.seen_scan) throw ImageError(name + ": JPEG has no image data (EOI before any scan)");
      return header;
    }
    if (marker == 0x00 || marker == kTEM || is_restart(marker)) continue;  // no length field
    if (marker == kSOI) s.corrupt("a second SOI marker" + where);
    if (size - pos < 2) throw ImageError(truncated + "segment " + hex_marker(marker) + where + " is cut short");
    const size_t length = size_t{data[pos]} << 8 | data[pos + 1];
    if (length < 2) s.corrupt("segment " + hex_marker(marker) + where + " has length " + std::to_string(length));
    if (size - pos < length)
      throw ImageError(truncated + "segment " + hex_marker(marker) + where + " needs " + std::to_string(length) +
                       " bytes, " + std::to_string(size - pos) + " remain");
    const uint8_t* body = data + pos + 2;
    const size_t body_size = length - 2;
    pos += length;
    if (is_sof(marker)) read_sof(marker, body, body_size, s, header, limits);
    if (marker == kDHT) read_dht(body, body_size, s);
    if (marker == kDQT) read_dqt(body, body_size, s);
    if (marker == kSOS) {
      check_sos(body, body_size, s);
      pos = skip_entropy_coded(data, size, pos);
      if (pos >= size) throw ImageError(truncated + "the scan data runs to the end of the file without EOI");
    }
  }
}

}  // namespace saguaro::image
