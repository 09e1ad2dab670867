// Writing tensors of any rank as NumPy .npy files (uint8 or float32), atomically.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace saguaro::image {

/// Writes `bytes` (little-endian values of numpy type `descr`, "|u1" or "<f4") with the given
/// shape as a version 1.0 .npy at `path`, through `path`.tmp and a rename, so that a failure
/// leaves neither a partial file nor the temporary behind. Throws ImageError.
void write_npy(const std::string& path, const std::string& descr, const std::vector<int64_t>& shape,
               const void* bytes, size_t size);

}  // namespace saguaro::image
