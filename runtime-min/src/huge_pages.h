// Anonymous memory on transparent huge pages: where the loader reads the weights, and the buffer the bench's read
// loop streams as the reference for decode (so both are read through the same kind of pages).
#pragma once

#include <cstdint>

namespace saguaro {

/// A private anonymous read-write mapping of at least `bytes` (whole 2 MiB pages, `*length` receives the size to
/// munmap) that starts on a 2 MiB boundary and is advised to use transparent huge pages (`*advised`: whether the
/// kernel took the advice; without it the memory still works). Null on failure, errno set.
void* map_huge_pages(uint64_t bytes, uint64_t* length, bool* advised);

}  // namespace saguaro
