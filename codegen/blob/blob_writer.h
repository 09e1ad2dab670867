// Compiler-side writer of the weights.sgw blob (format: docs/internals.md, schema: weights.fbs).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "saguaro/model_abi.h"

namespace saguaro {

/// One tensor to store; `data` must stay valid until write_blob returns.
struct BlobTensor {
  std::string name, kind, layout = "row-major";
  saguaro::DType dtype;
  std::vector<int64_t> shape;
  const void* data;
  uint64_t bytes;
  bool mapped = false;  // only ever gathered a row at a time: stored in the mapped section (docs/internals.md)
};

/// The sizes of a written blob.
struct BlobSizes {
  uint64_t file_bytes = 0;
  uint64_t mapped_bytes = 0;  // of the mapped section, from its start to the end of the file (0 without one)
};

/// Writes tensors + metadata to `path` atomically (path.tmp then rename); byte-identical for identical inputs.
/// The mapped tensors must come last; they go, in order, into the mapped section after the others. Without mapped
/// tensors the file has no mapped section.
bool write_blob(const std::string& path, const std::vector<BlobTensor>& tensors,
                const std::vector<std::pair<std::string, std::string>>& metadata, std::string* error,
                BlobSizes* sizes = nullptr);

}  // namespace saguaro
