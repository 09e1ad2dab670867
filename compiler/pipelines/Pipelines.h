//===- Pipelines.h - named pass pipelines ----------------------------------------------===//
#ifndef SAGUARO_COMPILER_PIPELINES_PIPELINES_H
#define SAGUARO_COMPILER_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"

namespace saguaro {
/// llm -> fused llm -> (cq) -> kern -> planned kern -> EmitC: the pipeline `saguaro compile` runs.
/// `bits` is the default weight bit width (16 keeps float32; the module's cq.policy overrides it).
/// `calibrationTaps` adds kern-insert-calibration-taps (the program then reports XᵀX per weight input).
/// `cqActivations` is f32 or i8 (llm-lower-to-kern); `target` picks the packed weight layouts (kern-pack-weights).
void buildCompilePipeline(mlir::PassManager &pm, int64_t bits = 16, bool calibrationTaps = false,
                          const std::string &cqActivations = "f32", const std::string &target = "generic");
/// Registers every dialect the pipeline touches.
void registerSaguaroDialects(mlir::DialectRegistry &registry);
} // namespace saguaro

#endif // SAGUARO_COMPILER_PIPELINES_PIPELINES_H
