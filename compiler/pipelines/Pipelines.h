//===- Pipelines.h - named pass pipelines ----------------------------------------------===//
#ifndef SAGUARO_COMPILER_PIPELINES_PIPELINES_H
#define SAGUARO_COMPILER_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"

namespace saguaro {
/// llm -> fused llm -> kern -> planned kern -> EmitC: the pipeline `saguaro compile` runs.
void buildCompilePipeline(mlir::PassManager &pm);
/// Registers every dialect the pipeline touches.
void registerSaguaroDialects(mlir::DialectRegistry &registry);
} // namespace saguaro

#endif // SAGUARO_COMPILER_PIPELINES_PIPELINES_H
