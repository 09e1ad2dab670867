//===- Passes.h - cq pass declarations -------------------------------------------------===//
#ifndef SAGUARO_DIALECTS_CQ_TRANSFORMS_PASSES_H
#define SAGUARO_DIALECTS_CQ_TRANSFORMS_PASSES_H

#include "dialects/cq/IR/CqDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace saguaro::cq {
#define GEN_PASS_DECL
#include "dialects/cq/Transforms/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "dialects/cq/Transforms/Passes.h.inc"

/// The CQ group size for rows of `k` elements (docs/quantization.md).
int64_t groupSize(int64_t k);
} // namespace saguaro::cq

#endif // SAGUARO_DIALECTS_CQ_TRANSFORMS_PASSES_H
