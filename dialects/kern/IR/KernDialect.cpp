//===- KernDialect.cpp - kern dialect registration and verifiers -----------------------===//
#include "dialects/kern/IR/KernDialect.h"

#include "dialects/kern/IR/KernelCatalogue.h"
#include "saguaro/kernels/layouts.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace saguaro::kern;

#include "dialects/kern/IR/KernOpsDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/kern/IR/KernAttrs.cpp.inc"

void KernDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/kern/IR/KernOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/kern/IR/KernAttrs.cpp.inc"
      >();
}

int64_t saguaro::kern::bufferBytes(MemRefType type) {
  return type.getNumElements() * ((type.getElementTypeBitWidth() + 7) / 8);
}

LogicalResult AllocOp::verify() {
  auto type = cast<MemRefType>(getBuffer().getType());
  if (!type.hasStaticShape())
    return emitOpError("buffer shape must be static, got ") << type;
  if (IntegerAttr offset = getOffsetAttr(); offset && (offset.getInt() < 0 || offset.getInt() % 64 != 0))
    return emitOpError() << "offset " << offset.getInt() << " is not a non-negative multiple of 64";
  return success();
}

// The entry points' runtime parameters (model_abi.h): the decoder's, the probe's, a prefill's soft-token rows and
// an encoder's (the audio tower's frames after each subsampling: rows_2, rows_4; a streamed clip's step's frames of
// earlier steps: start, start_2, start_4).
static const char *const kParamNames[] = {"rows",       "pos0",      "tokens",      "logits",   "all_logits",
                                          "logit_rows", "parallel",  "hidden",      "p_wrong",  "soft_embeds",
                                          "soft_mask",  "patches",   "positions",   "soft_rows", "soft_tokens",
                                          "features",   "rows_2",    "rows_4",      "start",    "start_2",
                                          "start_4"};

LogicalResult LayoutAttr::verify(llvm::function_ref<InFlightDiagnostic()> emitError, StringRef name) {
  if (!saguaro::kernels::find_layout(name.str().c_str()))
    return emitError() << "unknown layout \"" << name << "\"";
  return success();
}

LogicalResult CallOp::verify() {
  int64_t numBuffers = getBuffers().size();
  for (Attribute arg : getArgs()) {
    if (auto i = dyn_cast<IntegerAttr>(arg); i && i.getType().isIndex()) {
      if (i.getInt() < 0 || i.getInt() >= numBuffers)
        return emitOpError() << "argument refers to buffer " << i.getInt() << " but the call has "
                             << numBuffers;
      continue;
    }
    if (auto p = dyn_cast<ParamAttr>(arg)) {
      if (!llvm::is_contained(kParamNames, p.getName()))
        return emitOpError() << "unknown runtime parameter \"" << p.getName() << "\"";
      continue;
    }
    if (isa<WeightAttr, KvAttr, IntegerAttr, FloatAttr, BoolAttr>(arg))
      continue;
    return emitOpError() << "unsupported argument " << arg;
  }
  const KernelSignature *kernel = findKernel(getCallee());
  if (!kernel)
    return emitOpError() << "calls \"" << getCallee() << "\", which is not a kernel of the catalogue "
                         << "(dialects/kern/IR/KernelCatalogue.h)";
  std::string message;
  if (failed(verifyKernelCall(*kernel, getTemplateArgs(), getArgs(), numBuffers, message)))
    return emitOpError() << message;
  return success();
}

LogicalResult TapOp::verify() {
  auto type = cast<MemRefType>(getBuffer().getType());
  if (type.getRank() != 2 || !type.hasStaticShape() || !type.getElementType().isF32())
    return emitOpError("taps a static [rows, cols] f32 buffer, got ") << type;
  if (getIdAttr().getInt() < 0)
    return emitOpError() << "id " << getIdAttr().getInt() << " is negative";
  return success();
}

#define GET_OP_CLASSES
#include "dialects/kern/IR/KernOps.cpp.inc"
