// Reads a whole input file after checking its size.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace saguaro::image {

/// The bytes of the regular file at `path`. Throws ImageError ("PATH: ...") when the file cannot be
/// opened, is not a regular file, is empty, or is larger than `max_bytes` (checked before reading).
std::vector<uint8_t> read_file_bytes(const std::string& path, uint64_t max_bytes);

}  // namespace saguaro::image
