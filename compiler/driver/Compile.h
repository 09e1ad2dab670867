//===- Compile.h - model files -> bundle -----------------------------------------------===//
#ifndef SAGUARO_COMPILER_DRIVER_COMPILE_H
#define SAGUARO_COMPILER_DRIVER_COMPILE_H

#include "llvm/Support/Error.h"

#include <algorithm>
#include <optional>
#include <string>

namespace saguaro {

/// Weight bit widths: 1-4 codebook-quantized (docs/quantization.md), 16 stored in IEEE binary16, 32 in float32 (the
/// default: the checkpoint's own precision).
constexpr int64_t kFloatBits = 32;
inline bool isWeightBits(int64_t bits) { return (bits >= 1 && bits <= 4) || bits == 16 || bits == kFloatBits; }
constexpr const char *kWeightBitsList = "1, 2, 3, 4, 16 (binary16) or 32 (float32)";

/// The KV-cache element type bundles get unless told otherwise (--kv-cache).
constexpr const char *kDefaultKvCache = "f16";

/// "" when `kvCache` names a KV-cache element type (f16 or f32), else the one-line complaint about --kv-cache.
inline std::string kvCacheProblem(const std::string &kvCache) {
  return kvCache == "f16" || kvCache == "f32" ? "" : "--kv-cache must be f16 or f32, got '" + kvCache + "'";
}

struct CompileOptions {
  std::string model;      // llama2.c .bin or a Hugging Face directory
  std::string tokenizer;  // optional tokenizer file (llama2.c tokenizer.bin or tokenizer.json)
  std::string chatTemplate; // optional Jinja file replacing tokenizer_config.json's chat_template
  std::string target = "generic";
  int64_t bits = kFloatBits; // default weight bits: 1-4 (codebook quantization), 16 (binary16) or 32 (float32)
  std::string policy;        // optional JSON file: tensor name or kind -> bits
  double bpw = 0;            // > 0: mixed precision by measured sensitivity at this average
  std::string probe;         // optional trained probe file folded into the bundle (docs/probe.md)
  std::string calibration;   // optional text: sensitivities (--bpw) and error feedback are measured on it
  bool calibrationTaps = false; // float32 program whose taps report XᵀX of every weight's input
  std::optional<float> damp;    // error feedback's damping relative to the mean of diag(H); unset: quant::default_damp(bits)
  std::string cqActivations = "i8"; // codebook matmuls on int8 (integer kernels) or f32 (the exact format) activations
  std::string kvCache = kDefaultKvCache; // KV-cache elements: f16 (IEEE binary16, half the bytes) or f32 (float32 throughout)
  int64_t hiddenTapLayer = 0; // > 0: llm.hidden_tap after this many layers; kHiddenTapAuto: about 2/3 of the depth
  int64_t maxSeq = 0;     // 0: the model's own limit, capped at kDefaultMaxSeq
  int64_t prefillChunk = 0; // 0: min(kDefaultPrefillChunk, the sequence length)
  bool handoff = false;     // ship handoff/ in the bundle: saguaro_complete applies the cloud policy (needs libcurl)
  bool embedWeights = false; // also build libsaguaro_model.a with the weights linked in (docs/firmware.md)
  bool threadPool = true;    // false (--threads 0): the runtime is built without a thread pool
  bool verbose = false;
};

constexpr int64_t kDefaultMaxSeq = 2048;
constexpr int64_t kHiddenTapAuto = -1;

/// The layer a probe reads by default: round(2/3 of the depth), at least 1 (docs/probe.md).
inline int64_t defaultHiddenTapLayer(int64_t layers) { return std::max<int64_t>(1, (2 * layers + 1) / 3); }
constexpr int64_t kDefaultPrefillChunk = 64;

/// Imports, lowers and writes a bundle to `outDir`.
llvm::Error compileBundle(const CompileOptions &options, const std::string &outDir);

/// A content hash of everything that determines the bundle (model files, tokenizer,
/// options, compiler version), as 16 hex digits.
llvm::Expected<std::string> bundleKey(const CompileOptions &options);

} // namespace saguaro

#endif // SAGUARO_COMPILER_DRIVER_COMPILE_H
