// Counts global operator new calls while enabled (see alloc_counter.cpp).
#pragma once

#include <cstdint>

namespace saguaro::test {

/// Starts counting allocations from zero.
void start_alloc_count();
/// Stops counting and returns the number of allocations since start_alloc_count().
uint64_t stop_alloc_count();

}  // namespace saguaro::test
