//===- Passes.h - kern pass declarations -----------------------------------------------===//
#ifndef SAGUARO_DIALECTS_KERN_TRANSFORMS_PASSES_H
#define SAGUARO_DIALECTS_KERN_TRANSFORMS_PASSES_H

#include "dialects/kern/IR/KernDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

namespace saguaro::kern {
/// Whether `target` is one of the compiler's targets (the `target` option of kern-pack-weights and
/// kern-fuse-cq-products): generic, x86-avx2, x86-avx512vnni, aarch64-neon, aarch64-dotprod, aarch64-i8mm.
inline bool isKnownTarget(llvm::StringRef target) {
  static const llvm::StringRef kTargets[] = {"generic",      "x86-avx2",        "x86-avx512vnni",
                                             "aarch64-neon", "aarch64-dotprod", "aarch64-i8mm"};
  return llvm::is_contained(kTargets, target);
}

#define GEN_PASS_DECL
#include "dialects/kern/Transforms/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "dialects/kern/Transforms/Passes.h.inc"
} // namespace saguaro::kern

#endif // SAGUARO_DIALECTS_KERN_TRANSFORMS_PASSES_H
