// `saguaro_bundle BUNDLE --bench -o OUT.json`: the bundle's speed and the machine's limits, in one process.
#pragma once

#include <cstdint>
#include <string>

namespace saguaro {

/// Measures prefill tok/s (128-token prompt from position 0, median of several runs), decode tok/s (64 tokens
/// after it), the weight bytes one decoded token reads, the machine's streaming read bandwidth and int8
/// multiply-accumulate peak, and writes them with decode_efficiency to `out_path` as JSON (docs/user-guide.md,
/// "saguaro bench"). `bundle` is a bundle directory or a .sgw file. Returns the process exit code.
int run_bench(const std::string& bundle, const std::string& out_path, int32_t threads);

}  // namespace saguaro
