//===- Quantize.cpp - cq-quantize ------------------------------------------------------===//
//
// Chooses each weight's bit width and rewrites the ops that read it into their cq forms. The
// weights themselves are quantized by the bundle writer (compiler/quantize/), which reads the
// choices from `cq.quantized`; the IR never holds weight data. 16 bits keeps the llm op and stores
// the weight in IEEE binary16 (recorded in `cq.quantized` too: llm-lower-to-kern calls the f16
// kernels for it); 32 keeps it in float32 (not recorded).
//
//===------------------------------------------------------------------------------------===//
#include "dialects/cq/Transforms/Passes.h"

#include "codegen/kernels/include/saguaro/kernels/cq_format.h"
#include "dialects/common/ValueNames.h"
#include "mlir/IR/Builders.h"

namespace saguaro::cq {
#define GEN_PASS_DEF_QUANTIZE
#include "dialects/cq/Transforms/Passes.h.inc"
} // namespace saguaro::cq

using namespace mlir;
using namespace saguaro;

int64_t saguaro::cq::groupSize(int64_t k) { return kernels::cq::group_size(static_cast<int>(k)); }

namespace {
/// Bit widths that keep the llm op: 16 (IEEE binary16 weights) and 32 (float32).
bool isFloat(int64_t bits) { return bits == 16 || bits == 32; }

struct QuantizePass : cq::impl::QuantizeBase<QuantizePass> {
  using QuantizeBase::QuantizeBase;

  /// Bits for `weight` (1-4 codebook, 16 binary16, 32 float32), from the policy or the default; records every
  /// choice but float32.
  FailureOr<int64_t> bitsFor(Operation *op, llm::WeightAttr weight) {
    int64_t b = bits;
    if (auto policy = getOperation()->getAttrOfType<DictionaryAttr>("cq.policy"))
      if (auto entry = policy.getAs<IntegerAttr>(weight.getName()))
        b = entry.getInt();
    if (!isFloat(b) && (b < 1 || b > 4))
      return op->emitOpError() << "unsupported bit width " << b << " for '" << weight.getName()
                               << "' (1, 2, 3, 4, 16 or 32)";
    if (b != 32)
      chosen[weight.getName()] = b;
    return b;
  }

  cq::CodebookAttr codebook(int64_t bits, int64_t k) {
    return cq::CodebookAttr::get(&getContext(), bits, cq::groupSize(k));
  }

  /// A linear product as cq.matmul or llm.linear, by the weight's bits, located at `loc`.
  FailureOr<Value> product(OpBuilder &b, Operation *at, Location loc, Value x, llm::WeightAttr w,
                           RankedTensorType type) {
    FailureOr<int64_t> bw = bitsFor(at, w);
    if (failed(bw))
      return failure();
    int64_t k = cast<RankedTensorType>(x.getType()).getDimSize(1);
    if (isFloat(*bw))
      return b.create<llm::LinearOp>(loc, type, x, w).getResult();
    return b.create<cq::MatmulOp>(loc, type, x, w, codebook(*bw, k)).getResult();
  }

  LogicalResult rewrite(Operation *op) {
    OpBuilder b(op);
    if (auto l = dyn_cast<llm::LinearOp>(op)) {
      FailureOr<int64_t> bw = bitsFor(op, l.getWeight());
      if (failed(bw) || isFloat(*bw))
        return failed(bw) ? failure() : success();
      FailureOr<Value> y = product(b, op, op->getLoc(), l.getInput(), l.getWeight(), l.getType());
      if (failed(y))
        return failure();
      l.replaceAllUsesWith(*y);
      op->erase();
      return success();
    }
    if (auto m = dyn_cast<llm::GatedMlpOp>(op)) {
      FailureOr<int64_t> g = bitsFor(op, m.getGate()), u = bitsFor(op, m.getUp()), d = bitsFor(op, m.getDown());
      if (failed(g) || failed(u) || failed(d))
        return failure();
      if (isFloat(*g) && isFloat(*u) && isFloat(*d))
        return success();
      auto in = cast<RankedTensorType>(m.getType());
      auto hiddenType = RankedTensorType::get({in.getDimSize(0), m.getHidden()}, in.getElementType());
      // The parts are named as llm-lower-to-kern names the buffers of an unsplit MLP (`x_l3_mlp_gate`, ...).
      Location loc = op->getLoc();
      FailureOr<Value> gate = product(b, op, names::derived(loc, "gate"), m.getInput(), m.getGate(), hiddenType);
      FailureOr<Value> up = product(b, op, names::derived(loc, "up"), m.getInput(), m.getUp(), hiddenType);
      if (failed(gate) || failed(up))
        return failure();
      Value h = b.create<llm::GluOp>(names::derived(loc, "act"), *gate, *up, m.getActAttr());
      FailureOr<Value> down = product(b, op, loc, h, m.getDown(), in);
      if (failed(down))
        return failure();
      m.replaceAllUsesWith(*down);
      op->erase();
      return success();
    }
    if (auto e = dyn_cast<llm::EmbedOp>(op)) {
      FailureOr<int64_t> bw = bitsFor(op, e.getTable());
      if (failed(bw) || isFloat(*bw))
        return failed(bw) ? failure() : success();
      int64_t d = cast<RankedTensorType>(e.getType()).getDimSize(1);
      Value y = b.create<cq::GatherOp>(op->getLoc(), e.getType(), e.getTokens(), e.getTable(),
                                       codebook(*bw, d), e.getScaleAttr());
      e.replaceAllUsesWith(y);
      op->erase();
      return success();
    }
    if (auto l = dyn_cast<llm::LogitsOp>(op)) {
      FailureOr<int64_t> bw = bitsFor(op, l.getWeight());
      if (failed(bw) || isFloat(*bw))
        return failed(bw) ? failure() : success();
      int64_t k = cast<RankedTensorType>(l.getInput().getType()).getDimSize(1);
      Value y = b.create<cq::LogitsOp>(op->getLoc(), l.getType(), l.getInput(), l.getWeight(),
                                       codebook(*bw, k), l.getSoftcapAttr());
      l.replaceAllUsesWith(y);
      op->erase();
      return success();
    }
    return success();
  }

  void runOnOperation() override {
    if (!isFloat(bits) && (bits < 1 || bits > 4)) {
      getOperation().emitError() << "cq-quantize: unsupported bits=" << bits << " (1, 2, 3, 4, 16 or 32)";
      return signalPassFailure();
    }
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<llm::LinearOp, llm::GatedMlpOp, llm::EmbedOp, llm::LogitsOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops)
      if (failed(rewrite(op)))
        return signalPassFailure();
    Builder b(&getContext());
    SmallVector<NamedAttribute> entries;
    for (auto &[name, w] : chosen)
      entries.push_back(b.getNamedAttr(name, b.getI64IntegerAttr(w)));
    getOperation()->setAttr("cq.quantized", b.getDictionaryAttr(entries));
  }

  llvm::MapVector<StringRef, int64_t> chosen;
};
} // namespace
