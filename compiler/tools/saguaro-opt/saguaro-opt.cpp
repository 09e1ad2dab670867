//===- saguaro-opt.cpp - run Saguaro's passes on MLIR files ----------------------------===//
#include "codegen/emit/Passes.h"
#include "compiler/pipelines/Pipelines.h"
#include "dialects/cq/Transforms/Passes.h"
#include "dialects/kern/Transforms/Passes.h"
#include "dialects/llm/Transforms/Passes.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  saguaro::registerSaguaroDialects(registry);
  saguaro::llm::registerLlmPasses();
  saguaro::kern::registerKernPasses();
  saguaro::cq::registerCqPasses();
  saguaro::emit::registerEmitPasses();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  saguaro::registerCompilePipeline();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Saguaro optimizer driver\n", registry));
}
