// Bounds-checked little-endian reader over a compiled table (used by the tokenizer.bpe parsers).
#pragma once

#include <cstdint>
#include <string_view>

namespace saguaro {

/// Reads u8 / u32 / length-prefixed strings; every read fails (returns false) instead of running past the end.
struct ByteReader {
  const unsigned char* p;
  uint64_t left;

  /// One byte.
  bool u8(uint8_t* v) {
    if (left < 1) return false;
    *v = *p++, --left;
    return true;
  }
  /// One little-endian u32.
  bool u32(uint32_t* v) {
    if (left < 4) return false;
    *v = uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
    p += 4, left -= 4;
    return true;
  }
  /// u32 length, then that many bytes (a view into the table).
  bool str(std::string_view* s) {
    uint32_t n;
    if (!u32(&n) || n > left) return false;
    *s = std::string_view(reinterpret_cast<const char*>(p), n);
    p += n, left -= n;
    return true;
  }
};

}  // namespace saguaro
