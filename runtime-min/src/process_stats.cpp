// Reads VmHWM / VmRSS from /proc/self/status and a mapping's Rss from /proc/self/smaps.
#include "process_stats.h"

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace saguaro {
namespace {

uint64_t status_kb(const char* field) {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return 0;
  char line[256];
  unsigned long long kb = 0;
  const size_t n = std::strlen(field);
  while (std::fgets(line, sizeof line, f))
    if (std::strncmp(line, field, n) == 0 && line[n] == ':') {
      std::sscanf(line + n + 1, "%llu", &kb);
      break;
    }
  std::fclose(f);
  return kb;
}

}  // namespace

uint64_t peak_rss_bytes() { return status_kb("VmHWM") * 1024; }
uint64_t current_rss_bytes() { return status_kb("VmRSS") * 1024; }

uint64_t mapping_rss_bytes(const void* start) {
  FILE* f = std::fopen("/proc/self/smaps", "r");
  if (!f) return 0;
  char line[512];
  bool inside = false;  // in the lines of the mapping that starts at `start`
  unsigned long long kb = 0;
  while (std::fgets(line, sizeof line, f)) {
    unsigned long long begin = 0, end = 0;
    if (std::sscanf(line, "%llx-%llx ", &begin, &end) == 2) {  // a mapping's first line
      inside = begin == reinterpret_cast<uintptr_t>(start);
    } else if (inside && std::strncmp(line, "Rss:", 4) == 0) {
      std::sscanf(line + 4, "%llu", &kb);
      break;
    }
  }
  std::fclose(f);
  return kb * 1024;
}

}  // namespace saguaro
