// Little-endian byte appenders for the tokenizer tables (the runtime reads them with unicode/byte_reader.h).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace saguaro {

/// Appends one byte.
inline void put_u8(std::vector<uint8_t>* b, uint8_t v) { b->push_back(v); }
/// Appends a little-endian u32.
inline void put_u32(std::vector<uint8_t>* b, uint32_t v) {
  for (int i = 0; i < 4; ++i) b->push_back(static_cast<uint8_t>(v >> (8 * i)));
}
/// Appends a u32 length, then the bytes of `s`.
inline void put_str(std::vector<uint8_t>* b, std::string_view s) {
  put_u32(b, static_cast<uint32_t>(s.size()));
  b->insert(b->end(), s.begin(), s.end());
}

}  // namespace saguaro
