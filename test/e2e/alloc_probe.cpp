// Opens a compiled bundle, then counts heap allocations while it generates (prefill + decode).
// Usage: alloc_probe BUNDLE_DIR PROMPT STEPS; prints "allocations=N" and exits 0 when N == 0.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "alloc_counter.h"
#include "saguaro/engine.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: alloc_probe BUNDLE_DIR PROMPT STEPS\n");
    return 2;
  }
  std::string err;
  auto engine = saguaro::Engine::open(argv[1], &err);
  if (!engine) {
    std::fprintf(stderr, "alloc_probe: %s\n", err.c_str());
    return 2;
  }
  saguaro::GenerateConfig greedy;
  greedy.temperature = 0.0f;
  greedy.steps = std::atoi(argv[3]);
  saguaro::GenerateConfig sampled = greedy;
  sampled.temperature = 0.8f;
  sampled.top_k = 40;
  sampled.top_p = 0.9f;
  sampled.repetition_penalty = 1.1f;
  size_t bytes = 0;
  const saguaro::TokenCallback count = [&bytes](std::string_view text, int32_t) {
    bytes += text.size();
    return true;
  };
  saguaro::GenerateStats stats;
  saguaro::test::start_alloc_count();
  bool ok = engine->generate(argv[2], greedy, count, &stats, &err) &&
            engine->generate(argv[2], sampled, count, &stats, &err);
  const uint64_t allocations = saguaro::test::stop_alloc_count();
  if (!ok) {
    std::fprintf(stderr, "alloc_probe: %s\n", err.c_str());
    return 2;
  }
  std::printf("allocations=%llu generated_bytes=%zu positions=%d\n",
              static_cast<unsigned long long>(allocations), bytes, stats.positions);
  return allocations == 0 ? 0 : 1;
}
