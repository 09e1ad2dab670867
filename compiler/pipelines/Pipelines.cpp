//===- Pipelines.cpp - named pass pipelines --------------------------------------------===//
#include "compiler/pipelines/Pipelines.h"

#include "codegen/emit/Passes.h"
#include "dialects/cq/Transforms/Passes.h"
#include "dialects/kern/Transforms/Passes.h"
#include "dialects/llm/Transforms/Passes.h"
#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace {
/// CompilePipelineOptions as textual pipeline options; defaults as `saguaro compile` has them.
struct CompilePipelineFlags : mlir::PassPipelineOptions<CompilePipelineFlags> {
  Option<int64_t> bits{*this, "bits", llvm::cl::desc("default weight bits: 1-4 codebook, 16 binary16, 32 float32"),
                       llvm::cl::init(32)};
  Option<bool> calibrationTaps{*this, "calibration-taps",
                               llvm::cl::desc("tap the inputs of float weight matrices (calibration builds)"),
                               llvm::cl::init(false)};
  Option<std::string> cqActivations{*this, "cq-activations", llvm::cl::desc("f32 or i8"), llvm::cl::init("f32")};
  Option<std::string> kvCache{*this, "kv-cache", llvm::cl::desc("f32 or f16"), llvm::cl::init("f32")};
  Option<std::string> target{*this, "target", llvm::cl::desc("a target of saguaro/kernels/targets.h"),
                             llvm::cl::init("generic")};
};
} // namespace

void saguaro::buildCompilePipeline(mlir::OpPassManager &pm, const CompilePipelineOptions &o) {
  pm.addNestedPass<mlir::func::FuncOp>(llm::createFuseResidualNorm());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(cq::createQuantize(cq::QuantizeOptions{o.bits}));
  pm.addPass(llm::createLowerToKern(llm::LowerToKernOptions{o.cqActivations, o.kvCache}));
  pm.addPass(kern::createPackWeights(kern::PackWeightsOptions{o.target}));
  pm.addPass(kern::createMarkGatheredWeights());
  if (o.calibrationTaps)
    pm.addPass(kern::createInsertCalibrationTaps());
  pm.addPass(kern::createFuseCqProducts(kern::FuseCqProductsOptions{o.target}));
  pm.addPass(kern::createPlanMemory());
  pm.addPass(emit::createKernLowerToEmitC());
}

void saguaro::registerCompilePipeline() {
  mlir::PassPipelineRegistration<CompilePipelineFlags>(
      "saguaro-compile-pipeline", "The pipeline saguaro compile runs: llm -> cq -> kern -> planned kern -> EmitC",
      [](mlir::OpPassManager &pm, const CompilePipelineFlags &f) {
        buildCompilePipeline(pm, CompilePipelineOptions{f.bits, f.calibrationTaps, f.cqActivations, f.kvCache,
                                                        f.target});
      });
}

void saguaro::registerSaguaroDialects(mlir::DialectRegistry &registry) {
  registry.insert<llm::LlmDialect, kern::KernDialect, cq::CqDialect, mlir::func::FuncDialect, mlir::memref::MemRefDialect,
                  mlir::emitc::EmitCDialect>();
}
