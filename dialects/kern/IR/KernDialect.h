//===- KernDialect.h - the kern dialect's C++ declarations -----------------------------===//
#ifndef SAGUARO_DIALECTS_KERN_IR_KERNDIALECT_H
#define SAGUARO_DIALECTS_KERN_IR_KERNDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/kern/IR/KernOpsDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/kern/IR/KernAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialects/kern/IR/KernOps.h.inc"

namespace saguaro::kern {
/// Bytes a static float32 buffer of this type occupies.
int64_t bufferBytes(mlir::MemRefType type);
} // namespace saguaro::kern

#endif // SAGUARO_DIALECTS_KERN_IR_KERNDIALECT_H
