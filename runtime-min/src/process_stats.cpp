// Reads VmHWM / VmRSS from /proc/self/status.
#include "process_stats.h"

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

}  // namespace saguaro
