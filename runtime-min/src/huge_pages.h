// Anonymous memory on transparent huge pages: where the loader reads the weights, the model's activation arena and
// KV cache, and the buffer the bench's read loop streams as the reference for decode (so all are read through the
// same kind of pages).
#pragma once

#include <cstdint>

namespace saguaro {

/// A private anonymous read-write mapping of at least `bytes` (whole 2 MiB pages, `*length` receives the size to
/// munmap) that starts on a 2 MiB boundary and is advised to use transparent huge pages (`*advised`: whether the
/// kernel took the advice; without it the memory still works). Null on failure, errno set.
void* map_huge_pages(uint64_t bytes, uint64_t* length, bool* advised);

/// Zero-filled read-write memory, from map_huge_pages when it is at least one huge page (2 MiB) and from ordinary
/// pages when smaller, every page touched (no page faults later), unmapped on destruction. Empty (data() null) when
/// the mapping failed.
class HugePageMemory {
 public:
  HugePageMemory() = default;
  explicit HugePageMemory(uint64_t bytes);
  ~HugePageMemory();
  HugePageMemory(HugePageMemory&& other) noexcept;
  HugePageMemory& operator=(HugePageMemory&& other) noexcept;
  HugePageMemory(const HugePageMemory&) = delete;
  HugePageMemory& operator=(const HugePageMemory&) = delete;

  void* data() const { return data_; }
  uint64_t bytes() const { return bytes_; }
  /// Whether the memory is on transparent huge pages as far as the kernel accepted the advice (false for memory
  /// smaller than one huge page).
  bool advised() const { return advised_; }
  /// Zeroes the first bytes() bytes again.
  void clear();

 private:
  void* data_ = nullptr;
  uint64_t bytes_ = 0;
  uint64_t length_ = 0;
  bool advised_ = false;
};

}  // namespace saguaro
