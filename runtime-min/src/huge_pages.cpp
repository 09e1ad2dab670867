// Anonymous memory on transparent huge pages (huge_pages.h).
#include "huge_pages.h"

#include <sys/mman.h>

namespace saguaro {

void* map_huge_pages(uint64_t bytes, uint64_t* length, bool* advised) {
  constexpr uint64_t kHugePage = uint64_t{2} << 20;
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

}  // namespace saguaro
