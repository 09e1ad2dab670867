// Loads and verifies a weights.sgw blob: read from a file into memory of its own (or mmapped), or from bytes already
// in memory. A blob's mapped section (tables only ever gathered a row at a time) is mapped from the file in either
// case, so only the rows a run gathers become resident.
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

/// One verified tensor of a blob; `data` points into the loaded bytes.
struct BlobEntry {
  std::string name, kind, layout;
  DType dtype;
  std::vector<int64_t> shape;
  const void* data;
  uint64_t bytes;
  bool mapped;  // in the mapped section: gathered a row at a time, resident only where read
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
  /// Bytes of the mapped section (0 without one); the rest of the file is read into memory (or mapped whole).
  uint64_t mapped_bytes() const { return size_ - mapped_offset_; }
  /// Bytes of the mapped section resident in this process now: the pages of the rows read so far when it is a
  /// mapping of its own (VmRSS of the mapping), all of it when it was loaded with the rest.
  uint64_t mapped_resident_bytes() const;

 private:
  Blob() = default;
  /// Runs every check; `fd` >= 0 is the open file, from which the mapped section is hashed with pread.
  bool verify(int fd, std::string* problem);
  /// Hands the bytes [begin, end) of the file to `consume(offset, bytes, n)` in order, in pieces; reads the mapped
  /// section through a buffer with pread when `fd` >= 0. False with `problem` set when a read fails.
  template <class F>
  bool scan(int fd, uint64_t begin, uint64_t end, std::string* problem, F consume);
  /// Where byte `offset` of the file is in memory.
  const unsigned char* at(uint64_t offset) const {
    return offset < resident_bytes_ ? base_ + offset : section_ + (offset - mapped_offset_);
  }

  std::string name_;
  const unsigned char* base_ = nullptr;  // the file's bytes [0, resident_bytes_)
  uint64_t size_ = 0;
  uint64_t resident_bytes_ = 0;          // size_, or mapped_offset_ when the mapped section is a mapping of its own
  uint64_t mapped_offset_ = 0;           // start of the mapped section; size_ without one
  const unsigned char* section_ = nullptr;  // the mapped section when it is a mapping of its own
  uint64_t section_bytes_ = 0;
  void* mapping_ = nullptr;  // non-null when the bytes are a mapping of ours (the file's, or anonymous memory)
  uint64_t mapping_bytes_ = 0;
  std::vector<BlobEntry> tensors_;
  std::unordered_map<std::string, size_t> by_name_;
  std::unordered_map<std::string, std::string> meta_;
};

}  // namespace saguaro
