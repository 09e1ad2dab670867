// Anonymous memory on transparent huge pages (huge_pages.h).
#include "huge_pages.h"

#include <sys/mman.h>

#include <cstring>
#include <utility>

namespace saguaro {

namespace {
constexpr uint64_t kHugePage = uint64_t{2} << 20;
}  // namespace

void* map_huge_pages(uint64_t bytes, uint64_t* length, bool* advised) {
  const uint64_t size = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  // Over-allocate by one huge page and trim both ends to the aligned range.
  void* raw = mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const auto start = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
  if (aligned > start) munmap(raw, aligned - start);
  if (const uintptr_t tail = start + kHugePage - aligned; tail > 0) munmap(reinterpret_cast<void*>(aligned + size), tail);
  *advised = false;
#ifdef MADV_HUGEPAGE
  *advised = madvise(reinterpret_cast<void*>(aligned), size, MADV_HUGEPAGE) == 0;
#endif
  *length = size;
  return reinterpret_cast<void*>(aligned);
}

HugePageMemory::HugePageMemory(uint64_t bytes) {
  if (bytes >= kHugePage) {
    data_ = map_huge_pages(bytes, &length_, &advised_);
  } else {  // less than one huge page: ordinary pages, so a small model's memory does not grow to 2 MiB
    length_ = (bytes + 4095) / 4096 * 4096 + (bytes == 0 ? 4096 : 0);
    data_ = mmap(nullptr, length_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (data_ == MAP_FAILED) data_ = nullptr;
  }
  if (!data_) {
    length_ = 0;
    advised_ = false;
    return;
  }
  bytes_ = bytes;
  // A fresh anonymous mapping reads as zeros; writing them faults every page in now rather than during decode.
  std::memset(data_, 0, length_);
}

HugePageMemory::~HugePageMemory() {
  if (data_) munmap(data_, length_);
}

HugePageMemory::HugePageMemory(HugePageMemory&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)),
      length_(std::exchange(other.length_, 0)),
      advised_(std::exchange(other.advised_, false)) {}

HugePageMemory& HugePageMemory::operator=(HugePageMemory&& other) noexcept {
  if (this != &other) {
    if (data_) munmap(data_, length_);
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    length_ = std::exchange(other.length_, 0);
    advised_ = std::exchange(other.advised_, false);
  }
  return *this;
}

void HugePageMemory::clear() {
  if (data_) std::memset(data_, 0, bytes_);
}

}  // namespace saguaro
