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
};

/// Writes tensors + metadata to `path` atomically (path.tmp then rename); byte-identical for identical inputs.
bool write_blob(const std::string& path, const std::vector<BlobTensor>& tensors,
                const std::vector<std::pair<std::string, std::string>>& metadata, std::string* error);

}  // namespace saguaro
