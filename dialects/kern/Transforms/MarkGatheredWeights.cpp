//===- MarkGatheredWeights.cpp - kern-mark-gathered-weights ----------------------------===//
//
// A table that only gathers read (a per-layer-embedding table; a token embedding that is not
// also the output projection) is read one row per token, so the runtime need not hold it in
// memory: the bundle writer stores it in the blob's mapped section, which the loader maps from
// the file (docs/internals.md, "Blob"). This pass is where that is decided, from the calls that
// read each weight, and the module attribute `kern.gathered` is where it is recorded.
//
//===------------------------------------------------------------------------------------===//
#include "dialects/kern/Transforms/Passes.h"

#include "dialects/kern/IR/KernelCatalogue.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"

namespace saguaro::kern {
#define GEN_PASS_DEF_MARKGATHEREDWEIGHTS
#include "dialects/kern/Transforms/Passes.h.inc"
} // namespace saguaro::kern

using namespace mlir;
using namespace saguaro::kern;

namespace {
/// The weights a gather reads row by row (a dense `table`, or the `codes` and `norms` of a CQ table; not the
/// codebook, which every row needs whole); empty for any other call.
SmallVector<StringRef, 2> gatheredRows(CallOp call) {
  std::optional<KernelCall> c;
  SmallVector<StringRef, 2> args;
  if ((c = KernelCall::of(call, kEmbedF32)) || (c = KernelCall::of(call, kEmbedF16)))
    args = {"table"};
  else if ((c = KernelCall::of(call, kCqEmbedF32)))
    args = {"codes", "norms"};
  SmallVector<StringRef, 2> rows;
  for (StringRef arg : args)
    if (auto w = dyn_cast_or_null<WeightAttr>(c->arg(arg)))
      rows.push_back(w.getName());
  return rows;
}

struct MarkGatheredWeightsPass : saguaro::kern::impl::MarkGatheredWeightsBase<MarkGatheredWeightsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Every weight the calls read, and whether each call that reads it gathers its rows.
    llvm::MapVector<StringRef, bool> onlyGathered;
    WalkResult walk = module.walk([&](Operation *op) {
      StringRef dialect = op->getDialect() ? op->getDialect()->getNamespace() : "";
      if (dialect == "llm" || dialect == "cq") {
        op->emitOpError() << "is not lowered to kernel calls; kern-mark-gathered-weights runs after "
                             "llm-lower-to-kern";
        return WalkResult::interrupt();
      }
      auto call = dyn_cast<CallOp>(op);
      if (!call)
        return WalkResult::advance();
      SmallVector<StringRef, 2> rows = gatheredRows(call);
      for (Attribute a : call.getArgs())
        if (auto w = dyn_cast<WeightAttr>(a)) {
          auto [it, first] = onlyGathered.insert({w.getName(), true});
          it->second = it->second && llvm::is_contained(rows, w.getName());
        }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    Builder b(&getContext());
    SmallVector<Attribute> gathered;
    for (auto &[name, only] : onlyGathered)
      if (only)
        gathered.push_back(b.getStringAttr(name));
    module->setAttr("kern.gathered", b.getArrayAttr(gathered));
  }
};
} // namespace
