//===- Pipelines.h - named pass pipelines ----------------------------------------------===//
#ifndef SAGUARO_COMPILER_PIPELINES_PIPELINES_H
#define SAGUARO_COMPILER_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"

namespace saguaro {
/// What buildCompilePipeline varies.
struct CompilePipelineOptions {
  int64_t bits = 32;                 // default weight bits (1-4 codebook, 16 binary16, 32 float32; cq.policy overrides it)
  bool calibrationTaps = false;      // add kern-insert-calibration-taps (the program then reports XᵀX per weight input)
  std::string cqActivations = "f32"; // llm-lower-to-kern: codebook matmuls on f32 or i8 activations
  std::string kvCache = "f32";       // llm-lower-to-kern: KV-cache elements, f32 or f16
  std::string target = "generic";    // kern-pack-weights: the packed weight layouts' target
};
/// llm -> fused llm -> (cq) -> kern -> planned kern -> EmitC: the pipeline `saguaro compile` runs.
void buildCompilePipeline(mlir::OpPassManager &pm, const CompilePipelineOptions &options);
/// Registers the compile pipeline as `--saguaro-compile-pipeline` (options: bits, calibration-taps,
/// cq-activations, kv-cache, target), for saguaro-opt.
void registerCompilePipeline();
/// Registers every dialect the pipeline touches.
void registerSaguaroDialects(mlir::DialectRegistry &registry);
} // namespace saguaro

#endif // SAGUARO_COMPILER_PIPELINES_PIPELINES_H
