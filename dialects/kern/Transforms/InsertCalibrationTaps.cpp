//===- InsertCalibrationTaps.cpp - kern-insert-calibration-taps -------------------------===//
//
// Calibration needs, for every weight matrix W, the Gram matrix XᵀX of the activations X
// it multiplies (the Hessian of GPTQ's layer-wise objective). The generated program is
// the only forward pass the compiler has, so calibration builds tap it: each float matrix
// product in the prefill entry gets a `kern.tap` of its input just before it runs.
//
//===------------------------------------------------------------------------------------===//
#include "dialects/kern/Transforms/Passes.h"

#include "dialects/kern/IR/KernelCatalogue.h"

#include "mlir/IR/Builders.h"

namespace saguaro::kern {
#define GEN_PASS_DEF_INSERTCALIBRATIONTAPS
#include "dialects/kern/Transforms/Passes.h.inc"
} // namespace saguaro::kern

using namespace mlir;
using namespace saguaro::kern;

namespace {
/// The weight a float matrix product (matmul_*, logits_*: a plain [N, K] matrix read by a [rows, K] buffer) reads
/// and the buffer holding its activation; false for any other call.
bool weightAndInput(CallOp call, StringRef &weight, Value &input) {
  for (const KernelSignature *k : {&kMatmulF32, &kMatmulF16, &kLogitsF32, &kLogitsF16}) {
    std::optional<KernelCall> c = KernelCall::of(call, *k);
    if (!c)
      continue;
    auto w = dyn_cast<WeightAttr>(c->arg("w"));
    input = c->buffer("x");
    if (!w || !input)
      return false;
    weight = w.getName();
    return true;
  }
  return false;
}

struct InsertCalibrationTapsPass
    : saguaro::kern::impl::InsertCalibrationTapsBase<InsertCalibrationTapsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Builder b(&getContext());
    // Taps placed before (llm.hidden_tap) keep their ids; calibration taps follow them.
    SmallVector<Attribute> taps;
    if (auto existing = module->getAttrOfType<ArrayAttr>("kern.taps"))
      taps.assign(existing.begin(), existing.end());
    for (auto fn : module.getOps<func::FuncOp>()) {
      auto kind = fn->getAttrOfType<StringAttr>("llm.entry");
      if (!kind || kind.getValue() != "prefill")
        continue;
      // The open tap: the buffer it read and the weights that have read it unchanged since.
      Value openBuffer;
      SmallVector<Attribute> openWeights;
      int64_t openCols = 0;
      auto close = [&] {
        if (openBuffer)
          taps.push_back(b.getDictionaryAttr({b.getNamedAttr("cols", b.getI64IntegerAttr(openCols)),
                                              b.getNamedAttr("kind", b.getStringAttr("weights")),
                                              b.getNamedAttr("weights", b.getArrayAttr(openWeights))}));
        openBuffer = Value();
        openWeights.clear();
      };
      for (Operation &op : llvm::make_early_inc_range(fn.getBody().front())) {
        auto call = dyn_cast<CallOp>(op);
        StringRef weight;
        Value input;
        if (call && weightAndInput(call, weight, input)) {
          auto type = dyn_cast<MemRefType>(input.getType());
          if (!type || type.getRank() != 2) {
            call.emitOpError("reads its weight with an activation that is not a [rows, cols] buffer");
            return signalPassFailure();
          }
          if (input != openBuffer) {
            close();
            OpBuilder(call).create<TapOp>(call.getLoc(), input, static_cast<int64_t>(taps.size()));
            openBuffer = input;
            openCols = type.getDimSize(1);
          }
          openWeights.push_back(b.getStringAttr(weight));
          continue;
        }
        // Any other use of the tapped buffer may change it: the next reader gets its own tap.
        if (openBuffer && llvm::is_contained(op.getOperands(), openBuffer))
          close();
      }
      close();
    }
    module->setAttr("kern.taps", b.getArrayAttr(taps));
  }
};
} // namespace
