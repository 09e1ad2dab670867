// Writes float32 matrices and bool vectors as NumPy .npy files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace saguaro {

/// Writes `data` as a little-endian float32 [rows, cols] .npy at `path` (via path.tmp + rename).
bool write_npy_f32(const std::string& path, const std::vector<float>& data, uint64_t rows, uint64_t cols,
                   std::string* err);

/// Writes `data` (0 or 1 per element) as a bool [n] .npy at `path` (via path.tmp + rename).
bool write_npy_bool(const std::string& path, const std::vector<uint8_t>& data, std::string* err);

}  // namespace saguaro
