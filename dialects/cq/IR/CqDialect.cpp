//===- CqDialect.cpp - cq dialect registration and verifiers ---------------------------===//
#include "dialects/cq/IR/CqDialect.h"

#include "codegen/kernels/include/saguaro/kernels/cq_format.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace saguaro::cq;

#include "dialects/cq/IR/CqOpsDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/cq/IR/CqAttrs.cpp.inc"

void CqDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/cq/IR/CqOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/cq/IR/CqAttrs.cpp.inc"
      >();
}

LogicalResult CodebookAttr::verify(function_ref<InFlightDiagnostic()> emitError, int64_t bits, int64_t group) {
  if (bits < 1 || bits > 4)
    return emitError() << "codebook bits must be 1, 2, 3 or 4, got " << bits;
  if (group < 8 || group > 128 || (group & (group - 1)) != 0)
    return emitError() << "codebook group must be a power of two in [8, 128], got " << group;
  return success();
}

namespace {
/// The group size the format uses for rows of K elements (docs/quantization.md).
int64_t groupFor(int64_t k) { return saguaro::kernels::cq::group_size(static_cast<int>(k)); }

LogicalResult verifyProduct(Operation *op, Type input, Type result, CodebookAttr codebook) {
  auto in = cast<RankedTensorType>(input), out = cast<RankedTensorType>(result);
  if (in.getDimSize(0) != out.getDimSize(0))
    return op->emitOpError("input and result row counts differ");
  if (codebook.getGroup() != groupFor(in.getDimSize(1)))
    return op->emitOpError() << "codebook group " << codebook.getGroup() << " does not match the format's group "
                             << groupFor(in.getDimSize(1)) << " for rows of " << in.getDimSize(1);
  return success();
}
} // namespace

LogicalResult MatmulOp::verify() { return verifyProduct(*this, getInput().getType(), getType(), getCodebook()); }
LogicalResult LogitsOp::verify() { return verifyProduct(*this, getInput().getType(), getType(), getCodebook()); }

#define GET_OP_CLASSES
#include "dialects/cq/IR/CqOps.cpp.inc"
