//===- Passes.h - kern pass declarations -----------------------------------------------===//
#ifndef SAGUARO_DIALECTS_KERN_TRANSFORMS_PASSES_H
#define SAGUARO_DIALECTS_KERN_TRANSFORMS_PASSES_H

#include "dialects/kern/IR/KernDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "saguaro/kernels/targets.h"
#include "llvm/ADT/StringRef.h"

namespace saguaro::kern {
/// The target called `target` (the `target` option of kern-pack-weights and kern-fuse-cq-products) in the
/// compiler's one target table, saguaro/kernels/targets.h; null for a name that is not a target.
inline const kernels::TargetInfo *findTarget(llvm::StringRef target) {
  for (const kernels::TargetInfo &t : kernels::kTargets)
    if (target == t.name)
      return &t;
  return nullptr;
}

#define GEN_PASS_DECL
#include "dialects/kern/Transforms/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "dialects/kern/Transforms/Passes.h.inc"
} // namespace saguaro::kern

#endif // SAGUARO_DIALECTS_KERN_TRANSFORMS_PASSES_H
