//===- LlmDialect.h - the llm dialect's C++ declarations -------------------------------===//
#ifndef SAGUARO_DIALECTS_LLM_IR_LLMDIALECT_H
#define SAGUARO_DIALECTS_LLM_IR_LLMDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/llm/IR/RelativeTable.h"

#include "dialects/llm/IR/LlmOpsDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/llm/IR/LlmAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialects/llm/IR/LlmOps.h.inc"

namespace saguaro::llm {
/// True when every use of `value` other than `user` comes before `user` in its block, so
/// `user` may overwrite the value's storage in place.
bool isLastUse(mlir::Value value, mlir::Operation *user);
} // namespace saguaro::llm

#endif // SAGUARO_DIALECTS_LLM_IR_LLMDIALECT_H
