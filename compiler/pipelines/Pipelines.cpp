//===- Pipelines.cpp - named pass pipelines --------------------------------------------===//
#include "compiler/pipelines/Pipelines.h"

#include "codegen/emit/Passes.h"
#include "dialects/kern/Transforms/Passes.h"
#include "dialects/llm/Transforms/Passes.h"
#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Transforms/Passes.h"

void saguaro::buildCompilePipeline(mlir::PassManager &pm) {
  pm.addNestedPass<mlir::func::FuncOp>(llm::createFuseResidualNorm());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(llm::createLowerToKern());
  pm.addPass(kern::createPlanMemory());
  pm.addPass(emit::createKernLowerToEmitC());
}

void saguaro::registerSaguaroDialects(mlir::DialectRegistry &registry) {
  registry.insert<llm::LlmDialect, kern::KernDialect, mlir::func::FuncDialect, mlir::memref::MemRefDialect,
                  mlir::emitc::EmitCDialect>();
}
