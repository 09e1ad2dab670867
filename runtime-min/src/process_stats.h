// Memory statistics of the current process, from /proc/self/status (0 where unavailable).
#pragma once

#include <cstdint>

namespace saguaro {

/// Peak resident set size (VmHWM) in bytes.
uint64_t peak_rss_bytes();
/// Current resident set size (VmRSS) in bytes.
uint64_t current_rss_bytes();

}  // namespace saguaro
