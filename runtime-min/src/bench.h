// `saguaro_bundle BUNDLE --bench -o OUT.json`: the bundle's speed and the machine's limits, in one process.
#pragma once

#include <cstdint>
#include <string>

#include "saguaro/model_abi.h"
#include "saguaro/weights_load.h"

namespace saguaro {

/// KV-cache bytes one decode step reads on average over `steps` steps at positions first_pos, first_pos + 1, …:
/// at position p every layer's attention reads the K and V rows of the p + 1 positions it sees, or of its sliding
/// window (spec.windows). A position's rows take kv_bytes over the positions the layers' caches keep: exact when every
/// layer owns a cache of one width; Gemma 4's KV-shared layers and per-type head dims make it an estimate.
double kv_bytes_per_decode_step(const ModelSpec& spec, int32_t first_pos, int32_t steps);

/// The bench's prompt length unless told otherwise (--prompt-tokens).
constexpr int32_t kBenchPromptTokens = 128;

/// Measures prefill tok/s (a prompt of `prompt_tokens` from position 0, median of several runs), decode tok/s (64
/// tokens after it), the weight and KV-cache bytes one decoded token reads, the memory plan beside the peak RSS,
/// the machine's streaming read bandwidth and int8 multiply-accumulate peak, and writes them with the decode
/// efficiencies to `out_path` as JSON (docs/user-guide.md, "saguaro bench"). `bundle` is a bundle directory or a
/// .sgw file, loaded as `load` says (the engine's default: read into memory). Returns the process exit code.
int run_bench(const std::string& bundle, const std::string& out_path, int32_t threads, WeightsLoad load,
              int32_t prompt_tokens = kBenchPromptTokens);

/// `--bench-image`: the vision tower on a whole budget of random patches (the most nearly square grid of soft tokens
/// the position table holds), the prefill of the prompt it becomes (begin-image, the soft tokens, end-image), both
/// the median of several runs, with the machine's int8 and float32 multiply-accumulate peaks measured in the same
/// process; written to `out_path` as JSON. Returns the process exit code.
int run_bench_image(const std::string& bundle, const std::string& out_path, int32_t threads, WeightsLoad load);

/// `--bench-audio`: the same for the audio tower on 30 s of random log-mel frames (2999, the most a clip has).
int run_bench_audio(const std::string& bundle, const std::string& out_path, int32_t threads, WeightsLoad load);

}  // namespace saguaro
