// UTF-8 boundary tracking for streamed output.
#include "utf8_stream.h"

namespace saguaro {
namespace {

// Bytes of a character whose lead byte is c; 0 for a continuation or invalid byte.
size_t expected_len(unsigned char c) {
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) return 2;
  if ((c & 0xF0) == 0xE0) return 3;
  if ((c & 0xF8) == 0xF0) return 4;
  return 0;
}

// Length of the longest prefix of s that does not end inside an incomplete (but so far valid) character.
size_t complete_prefix(std::string_view s) {
  const size_t n = s.size();
  for (size_t back = 1; back <= 3 && back <= n; ++back) {
    const unsigned char c = static_cast<unsigned char>(s[n - back]);
    if ((c & 0xC0) == 0x80) continue;  // continuation byte: keep looking for its lead byte
    const size_t want = expected_len(c);
    return (want > back) ? n - back : n;
  }
  return n;  // only continuation bytes at the end: not a character we can complete, emit as is
}

}  // namespace

std::string_view Utf8Stream::push(std::string_view piece) {
  buf_.erase(0, emitted_);
  buf_.append(piece.data(), piece.size());
  emitted_ = complete_prefix(buf_);
  return std::string_view(buf_.data(), emitted_);
}

std::string_view Utf8Stream::flush() {
  buf_.erase(0, emitted_);
  emitted_ = buf_.size();
  return std::string_view(buf_.data(), emitted_);
}

}  // namespace saguaro
