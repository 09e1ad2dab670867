//===- Passes.h - lowering to EmitC ----------------------------------------------------===//
#ifndef SAGUARO_CODEGEN_EMIT_PASSES_H
#define SAGUARO_CODEGEN_EMIT_PASSES_H

#include "dialects/kern/IR/KernDialect.h"
#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace saguaro::emit {
#define GEN_PASS_DECL
#include "codegen/emit/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "codegen/emit/Passes.h.inc"
} // namespace saguaro::emit

#endif // SAGUARO_CODEGEN_EMIT_PASSES_H
