//===- PlanMemory.cpp - kern-plan-memory -----------------------------------------------===//
//
// Static memory planning: liveness intervals over the straight-line call list, then
// first-fit placement into one arena. The arena size is known at compile time, which is
// what lets `manifest.json` state the program's peak memory before it runs.
//
//===------------------------------------------------------------------------------------===//
#include "dialects/kern/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

#include <algorithm>
#include <map>
#include <string>

namespace saguaro::kern {
#define GEN_PASS_DEF_PLANMEMORY
#include "dialects/kern/Transforms/Passes.h.inc"
} // namespace saguaro::kern

using namespace mlir;
using namespace saguaro::kern;

namespace {
constexpr int64_t kAlign = 64;

int64_t alignUp(int64_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

/// A buffer's lifetime in call indices and its placement.
struct Interval {
  AllocOp alloc;
  int64_t first, last, bytes, offset = -1;
};

/// Plans one function; returns its arena size or failure. `plan` receives one
/// {offset, bytes, first_call, last_call} entry per buffer, for the manifest.
FailureOr<int64_t> planFunction(func::FuncOp fn, SmallVectorImpl<Attribute> &plan) {
  DenseMap<Value, size_t> index;
  std::vector<Interval> intervals;
  int64_t step = 0;
  for (Operation &op : fn.getBody().front()) {
    if (auto alloc = dyn_cast<AllocOp>(op)) {
      index[alloc] = intervals.size();
      intervals.push_back({alloc, -1, -1, alignUp(bufferBytes(alloc.getBuffer().getType()))});
      continue;
    }
    for (Value operand : op.getOperands()) {
      auto it = index.find(operand);
      if (it == index.end())
        return op.emitOpError("uses a buffer that is not a kern.alloc of this function");
      Interval &iv = intervals[it->second];
      if (iv.first < 0)
        iv.first = step;
      iv.last = step;
    }
    ++step;
  }

  // Place in order of first use (allocation order breaks ties, keeping output stable).
  std::vector<Interval *> order;
  for (Interval &iv : intervals) {
    if (iv.first < 0) {
      iv.alloc.emitWarning("buffer is never used; it gets no arena space");
      iv.first = iv.last = -1;
      iv.offset = 0;
      continue;
    }
    order.push_back(&iv);
  }
  std::stable_sort(order.begin(), order.end(),
                   [](Interval *a, Interval *b) { return a->first < b->first; });
  int64_t arena = 0;
  std::vector<Interval *> placed;
  for (Interval *iv : order) {
    std::vector<std::pair<int64_t, int64_t>> busy; // [begin, end) of overlapping lifetimes
    for (Interval *other : placed)
      if (other->last >= iv->first && other->first <= iv->last)
        busy.push_back({other->offset, other->offset + other->bytes});
    std::sort(busy.begin(), busy.end());
    int64_t candidate = 0;
    for (auto [begin, end] : busy) {
      if (candidate + iv->bytes <= begin)
        break;
      candidate = std::max(candidate, end);
    }
    iv->offset = candidate;
    arena = std::max(arena, candidate + iv->bytes);
    placed.push_back(iv);
  }
  Builder b(fn.getContext());
  for (Interval &iv : intervals) {
    iv.alloc.setOffsetAttr(b.getI64IntegerAttr(iv.offset));
    plan.push_back(b.getDictionaryAttr({b.getNamedAttr("offset", b.getI64IntegerAttr(iv.offset)),
                                        b.getNamedAttr("bytes", b.getI64IntegerAttr(iv.first < 0 ? 0 : iv.bytes)),
                                        b.getNamedAttr("first_call", b.getI64IntegerAttr(iv.first)),
                                        b.getNamedAttr("last_call", b.getI64IntegerAttr(iv.last))}));
  }
  fn->setAttr("kern.arena_bytes", b.getI64IntegerAttr(arena));
  return arena;
}

struct PlanMemoryPass : saguaro::kern::impl::PlanMemoryBase<PlanMemoryPass> {
  void runOnOperation() override {
    Builder b(&getContext());
    int64_t arena = 0;
    std::map<std::string, int64_t> encoderArenas; // by entry kind
    SmallVector<NamedAttribute> plans;
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (fn.isExternal())
        continue;
      SmallVector<Attribute> buffers;
      FailureOr<int64_t> bytes = planFunction(fn, buffers);
      if (failed(bytes))
        return signalPassFailure();
      // An encoder tower (vision, audio) runs on its own arena, which exists only while it runs; a streamed
      // clip's step (audio_step) runs on the audio tower's.
      auto kind = fn->getAttrOfType<StringAttr>("llm.entry");
      StringRef tower = !kind ? "" : kind.getValue() == "audio_step" ? "audio" : kind.getValue();
      bool encoder = tower == "vision" || tower == "audio";
      int64_t &shared = encoder ? encoderArenas[tower.str()] : arena;
      shared = std::max(shared, *bytes);
      plans.push_back(b.getNamedAttr(
          fn.getSymName(), b.getDictionaryAttr({b.getNamedAttr("arena_bytes", b.getI64IntegerAttr(*bytes)),
                                                b.getNamedAttr("buffers", b.getArrayAttr(buffers))})));
    }
    getOperation()->setAttr("kern.arena_bytes", b.getI64IntegerAttr(arena));
    for (const auto &[kind, bytes] : encoderArenas) // kern.vision_arena_bytes, kern.audio_arena_bytes
      if (bytes > 0)
        getOperation()->setAttr("kern." + kind + "_arena_bytes", b.getI64IntegerAttr(bytes));
    // The plan per function, kept on the module so the bundle's manifest can show it.
    getOperation()->setAttr("kern.memory_plan", b.getDictionaryAttr(plans));
  }
};
} // namespace
