//===- Bench.h - `saguaro bench MODEL` --------------------------------------------------===//
#ifndef SAGUARO_COMPILER_DRIVER_BENCH_H
#define SAGUARO_COMPILER_DRIVER_BENCH_H

#include "compiler/driver/Compile.h"

#include <string>
#include <vector>

namespace saguaro {

struct BenchOptions {
  std::string model;              // llama2.c .bin or a Hugging Face directory
  std::vector<int> bits = {4, 3, 2, 16}; // {0} with a policy
  std::string policy;             // non-empty: one bundle quantized by this --policy file instead of bits
  std::vector<int> threads;       // empty: 1 and every hardware thread
  std::string target;             // empty: the widest target the host runs (kernels::native_target)
  std::string kvCache = kDefaultKvCache; // KV-cache elements of the benchmarked bundles (saguaro compile --kv-cache)
  int promptTokens = 128;         // the prompt the prefill is timed on (saguaro_bundle --bench --prompt-tokens)
  bool image = false;             // the vision tower instead of the decoder (saguaro_bundle --bench-image)
  bool audio = false;             // the audio tower instead of the decoder (saguaro_bundle --bench-audio)
  bool json = false;
};

/// Compiles (through the bundle cache), builds and runs `saguaro_bundle --bench` (with `image`: `--bench-image`, with
/// `audio`: `--bench-audio`) for
/// every bits value and thread count and prints one table, or JSON; returns the process exit code.
int runModelBench(const BenchOptions &options);

} // namespace saguaro

#endif // SAGUARO_COMPILER_DRIVER_BENCH_H
