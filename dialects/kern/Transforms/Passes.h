//===- Passes.h - kern pass declarations -----------------------------------------------===//
#ifndef SAGUARO_DIALECTS_KERN_TRANSFORMS_PASSES_H
#define SAGUARO_DIALECTS_KERN_TRANSFORMS_PASSES_H

#include "dialects/kern/IR/KernDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace saguaro::kern {
#define GEN_PASS_DECL
#include "dialects/kern/Transforms/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "dialects/kern/Transforms/Passes.h.inc"
} // namespace saguaro::kern

#endif // SAGUARO_DIALECTS_KERN_TRANSFORMS_PASSES_H
