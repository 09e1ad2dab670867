//===- Passes.h - llm pass declarations ------------------------------------------------===//
#ifndef SAGUARO_DIALECTS_LLM_TRANSFORMS_PASSES_H
#define SAGUARO_DIALECTS_LLM_TRANSFORMS_PASSES_H

#include "dialects/kern/IR/KernDialect.h"
#include "dialects/llm/IR/LlmDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Pass/Pass.h"

namespace saguaro::llm {
#define GEN_PASS_DECL
#include "dialects/llm/Transforms/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "dialects/llm/Transforms/Passes.h.inc"
} // namespace saguaro::llm

#endif // SAGUARO_DIALECTS_LLM_TRANSFORMS_PASSES_H
