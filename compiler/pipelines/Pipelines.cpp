//===- Pipelines.cpp - named pass pipelines --------------------------------------------===//
#include "compiler/pipelines/Pipelines.h"

#include "codegen/emit/Passes.h"
#include "dialects/cq/Transforms/Passes.h"
#include "dialects/kern/Transforms/Passes.h"
#include "dialects/llm/Transforms/Passes.h"
#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Transforms/Passes.h"

void saguaro::buildCompilePipeline(mlir::PassManager &pm, const CompilePipelineOptions &o) {
  pm.addNestedPass<mlir::func::FuncOp>(llm::createFuseResidualNorm());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(cq::createQuantize(cq::QuantizeOptions{o.bits}));
  pm.addPass(llm::createLowerToKern(llm::LowerToKernOptions{o.cqActivations, o.kvCache}));
  pm.addPass(kern::createPackWeights(kern::PackWeightsOptions{o.target}));
  if (o.calibrationTaps)
    pm.addPass(kern::createInsertCalibrationTaps());
  pm.addPass(kern::createFuseCqProducts(kern::FuseCqProductsOptions{o.target}));
  pm.addPass(kern::createPlanMemory());
  pm.addPass(emit::createKernLowerToEmitC());
}

void saguaro::registerSaguaroDialects(mlir::DialectRegistry &registry) {
  registry.insert<llm::LlmDialect, kern::KernDialect, cq::CqDialect, mlir::func::FuncDialect, mlir::memref::MemRefDialect,
                  mlir::emitc::EmitCDialect>();
}
