// UTF-8 ↔ code points for the tokenizer pipeline. Invalid bytes survive a round trip as "raw byte" code points.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace saguaro::utf8 {

/// Code points at and above this value stand for one raw byte (kRawByte + byte) of invalid UTF-8.
constexpr uint32_t kRawByte = 0x110000;

/// Decodes the character at s[i]; stores its byte length in *len (≥ 1). Invalid bytes decode to kRawByte + byte.
uint32_t decode(std::string_view s, size_t i, size_t* len);
/// Appends the UTF-8 bytes of `cp` (or the raw byte it stands for).
void append(uint32_t cp, std::string* out);

}  // namespace saguaro::utf8
