//===- CqDialect.h - the cq dialect's C++ declarations ---------------------------------===//
#ifndef SAGUARO_DIALECTS_CQ_IR_CQDIALECT_H
#define SAGUARO_DIALECTS_CQ_IR_CQDIALECT_H

#include "dialects/llm/IR/LlmDialect.h"

#include "dialects/cq/IR/CqOpsDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/cq/IR/CqAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialects/cq/IR/CqOps.h.inc"

#endif // SAGUARO_DIALECTS_CQ_IR_CQDIALECT_H
