// Writes float32 matrices as NumPy .npy files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace saguaro {

/// Writes `data` as a little-endian float32 [rows, cols] .npy at `path` (via path.tmp + rename).
bool write_npy_f32(const std::string& path, const std::vector<float>& data, uint64_t rows, uint64_t cols,
                   std::string* err);

}  // namespace saguaro
