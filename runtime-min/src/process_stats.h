// Memory statistics of the current process, from /proc/self/status and /proc/self/smaps (0 where unavailable).
#pragma once

#include <cstdint>

namespace saguaro {

/// Peak resident set size (VmHWM) in bytes.
uint64_t peak_rss_bytes();
/// Current resident set size (VmRSS) in bytes.
uint64_t current_rss_bytes();
/// Resident bytes of the mapping that starts at `start` (its Rss in /proc/self/smaps): of a file mapping, the pages
/// this process has read.
uint64_t mapping_rss_bytes(const void* start);

}  // namespace saguaro
