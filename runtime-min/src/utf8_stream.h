// Streams decoded pieces without ever splitting a UTF-8 character across two emissions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace saguaro {

/// Holds back the bytes of an incomplete UTF-8 character at the end of a piece until it completes.
class Utf8Stream {
 public:
  /// Reserves room for pieces up to `max_piece` bytes, so push() does not allocate.
  explicit Utf8Stream(size_t max_piece) { buf_.reserve(max_piece + 8); }
  void reset() {
    buf_.clear();
    emitted_ = 0;
  }
  /// Appends `piece`; returns the bytes that are ready to emit (valid until the next call).
  std::string_view push(std::string_view piece);
  /// Returns whatever is still held (end of generation).
  std::string_view flush();

 private:
  std::string buf_;
  size_t emitted_ = 0;
};

}  // namespace saguaro
