// Loads and verifies a weights.sgw blob: read from a file into memory of its own (or mmapped), or from bytes already
// in memory.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "saguaro/model_abi.h"
#include "saguaro/weights_load.h"

namespace saguaro {

/// One verified tensor of a blob; `data` points into the mapped bytes.
struct BlobEntry {
  std::string name, kind, layout;
  DType dtype;
  std::vector<int64_t> shape;
  const void* data;
  uint64_t bytes;
};

/// A verified blob: every check of docs/runtime.md passed, so every entry can be used without further checks.
class Blob {
 public:
  /// Loads (`load`) and verifies `path`; on failure returns null and sets `err` to "PATH: problem".
  static std::unique_ptr<Blob> open(const std::string& path, std::string* err, WeightsLoad load = WeightsLoad::kRead);
  /// Verifies `size` bytes at `data` (64-byte aligned, must outlive the Blob); `name` prefixes messages.
  static std::unique_ptr<Blob> from_memory(const void* data, uint64_t size, const std::string& name, std::string* err);
  ~Blob();
  Blob(const Blob&) = delete;
  Blob& operator=(const Blob&) = delete;

  /// The tensor called `name`, or null.
  const BlobEntry* find(std::string_view name) const;
  /// The metadata value for `key`, or `fallback`.
  std::string meta(const std::string& key, const std::string& fallback = "") const;
  const std::vector<BlobEntry>& tensors() const { return tensors_; }
  /// Every metadata entry.
  const std::unordered_map<std::string, std::string>& metadata() const { return meta_; }
  const std::string& name() const { return name_; }
  uint64_t size() const { return size_; }

 private:
  Blob() = default;
  bool verify(std::string* problem);

  std::string name_;
  const unsigned char* base_ = nullptr;
  uint64_t size_ = 0;
  void* mapping_ = nullptr;  // non-null when the bytes are a mapping of ours (the file's, or anonymous memory)
  uint64_t mapping_bytes_ = 0;
  std::vector<BlobEntry> tensors_;
  std::unordered_map<std::string, size_t> by_name_;
  std::unordered_map<std::string, std::string> meta_;
};

}  // namespace saguaro
