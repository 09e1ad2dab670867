//===- FuseResidualNorm.cpp - llm-fuse-residual-norm -----------------------------------===//
//
// Fuses `llm.add` + `llm.rms_norm` into `llm.add_rms_norm`: the residual stream is read
// once per layer boundary instead of twice.
//
//===------------------------------------------------------------------------------------===//
#include "dialects/llm/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace saguaro::llm {
#define GEN_PASS_DEF_FUSERESIDUALNORM
#include "dialects/llm/Transforms/Passes.h.inc"
} // namespace saguaro::llm

using namespace mlir;
using namespace saguaro::llm;

namespace {
/// Rewrites rms_norm(add(h, d)) when `h` may be overwritten in place.
struct FuseAddIntoNorm : OpRewritePattern<RmsNormOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(RmsNormOp norm, PatternRewriter &rewriter) const override {
    auto add = norm.getInput().getDefiningOp<AddOp>();
    if (!add)
      return rewriter.notifyMatchFailure(norm, "input is not an llm.add");
    // The sum may feed later residual adds, but only one norm can own the fusion.
    int64_t normUsers = llvm::count_if(add->getUsers(), [](Operation *u) { return isa<RmsNormOp>(u); });
    if (normUsers != 1)
      return rewriter.notifyMatchFailure(norm, "sum feeds more than one norm");
    // The fused op overwrites its residual operand; pick the operand with no other use.
    Value residual = add.getLhs(), delta = add.getRhs();
    if (!isLastUse(residual, add))
      std::swap(residual, delta);
    if (!isLastUse(residual, add) || residual == delta)
      return rewriter.notifyMatchFailure(norm, "no operand of the add can be overwritten");

    rewriter.setInsertionPoint(add);
    // Located at both; the norm's location (last) names the normalized value and its block.
    auto fused = rewriter.create<AddRmsNormOp>(
        rewriter.getFusedLoc({add.getLoc(), norm.getLoc()}), TypeRange{add.getType(), norm.getType()}, residual, delta,
        norm.getWeightAttr(), norm.getEpsAttr(), norm.getAddOneAttr());
    rewriter.replaceOp(norm, fused.getNormed());
    rewriter.replaceOp(add, fused.getSum());
    return success();
  }
};

struct FuseResidualNormPass : saguaro::llm::impl::FuseResidualNormBase<FuseResidualNormPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseAddIntoNorm>(&getContext());
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
