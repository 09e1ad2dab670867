// Writing tensors of any rank as NumPy .npy files, atomically, alone or several together.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace saguaro::image {

/// One array to write: little-endian values of numpy type `descr` ("|u1", "<f4", "<i4").
struct NpyArray {
  std::string path;
  std::string descr;
  std::vector<int64_t> shape;
  const void* bytes = nullptr;
  size_t size = 0;
};

/// Writes every array as a version 1.0 .npy, each first to its path + ".tmp"; the temporaries
/// are renamed only once all are complete, so a failure to write leaves no partial file, no
/// temporary and none of the outputs replaced (only a failing rename, after that, could leave
/// the earlier ones renamed). Throws ImageError naming the path that failed.
void write_npy(const std::vector<NpyArray>& arrays);

}  // namespace saguaro::image
