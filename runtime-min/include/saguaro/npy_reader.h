// Reads NumPy .npy arrays (version 1-3, C order, little-endian float32 / int32 / uint8).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace saguaro {

/// An array as stored: its dtype ("<f4", "<i4" or "|u1"), shape and raw little-endian data.
struct NpyArray {
  std::string dtype;
  std::vector<uint64_t> shape;
  std::vector<uint8_t> data;
  uint64_t elements() const;
  /// The elements as T (float for "<f4", int32_t for "<i4"); the caller checks dtype first.
  template <class T>
  std::vector<T> as() const {
    std::vector<T> out(data.size() / sizeof(T));
    if (!out.empty()) std::memcpy(out.data(), data.data(), out.size() * sizeof(T));
    return out;
  }
};

/// Reads `path`; false and "PATH: problem" in *err when it is not such an array or holds more than max_bytes of
/// data.
bool read_npy(const std::string& path, NpyArray* out, std::string* err, uint64_t max_bytes = uint64_t{1} << 32);

}  // namespace saguaro
