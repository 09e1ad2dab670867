//===- FuseCqProducts.cpp - kern-fuse-cq-products ---------------------------------------===//
//
// A decode step multiplies one activation by several weights in a row — q, k and v after
// the attention norm, gate and up after the MLP norm. As separate `cq_matmul_i8` calls each
// product wakes the thread pool, streams a short matrix and waits for the slowest thread;
// as one `cq_matmul2_i8` / `cq_matmul3_i8` call the threads share one region over all the
// products' rows (docs/internals.md, "Fused products").
//
//===------------------------------------------------------------------------------------===//
#include "dialects/kern/Transforms/Passes.h"

#include "dialects/kern/IR/KernelCatalogue.h"

#include "mlir/IR/Builders.h"

namespace saguaro::kern {
#define GEN_PASS_DEF_FUSECQPRODUCTS
#include "dialects/kern/Transforms/Passes.h.inc"
} // namespace saguaro::kern

using namespace mlir;
using namespace saguaro::kern;

namespace {
/// One `cq_matmul_i8` call, split into what products of one fused call must share and what is its own.
struct Product {
  CallOp call;
  Value input, output;
  Attribute rows, codes, norms, codebook, parallel, layout;
  int64_t k, n, bits;

  static std::optional<Product> of(CallOp call) {
    std::optional<KernelCall> c = KernelCall::of(call, kCqMatmulI8);
    if (!c)
      return std::nullopt;
    Value x = c->buffer("xq"), y = c->buffer("y");
    if (!x || !y)
      return std::nullopt;
    return Product{call,           x,         y,
                   c->arg("rows"), c->arg("codes"), c->arg("norms"),
                   c->arg("codebook"), c->arg("parallel"), c->param("Layout"),
                   c->intParam("K"), c->intParam("N"), c->intParam("Bits")};
  }

  /// Whether `o` can join a fused call that starts with this product: the same activation, rows, codebook, K, bits,
  /// layout and thread pool, and an output of its own that is not the activation.
  bool fusesWith(const Product &o) const {
    return o.input == input && o.rows == rows && o.codebook == codebook && o.parallel == parallel && o.k == k &&
           o.bits == bits && o.layout == layout && o.output != input && output != input;
  }
};

struct FuseCqProductsPass : saguaro::kern::impl::FuseCqProductsBase<FuseCqProductsPass> {
  using FuseCqProductsBase::FuseCqProductsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    const saguaro::kernels::TargetInfo *info = findTarget(target);
    if (!info) {
      module.emitError("kern-fuse-cq-products: unknown target '") << target << "'";
      return signalPassFailure();
    }
    // The portable (reference) kernels would only run the products one after another, as the separate calls do.
    if (info->arch == saguaro::kernels::TargetArch::any)
      return;
    for (auto fn : module.getOps<func::FuncOp>())
      for (Block &block : fn.getBody())
        fuseBlock(block);
  }

  /// Groups runs of fusable products in `block`: between two products of a group there may only be `kern.alloc`s
  /// (nothing reads or writes a buffer there).
  void fuseBlock(Block &block) {
    SmallVector<Product> group;
    auto flush = [&] {
      if (group.size() > 1)
        fuse(group);
      group.clear();
    };
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (isa<AllocOp>(op))
        continue;
      auto call = dyn_cast<CallOp>(op);
      std::optional<Product> p = call ? Product::of(call) : std::nullopt;
      if (!p) {
        flush();
        continue;
      }
      bool joins = !group.empty() && cqMatmulI8Over(group.size() + 1) && group.front().fusesWith(*p);
      for (const Product &q : group)
        joins = joins && q.output != p->output;
      if (!joins)
        flush();
      group.push_back(*p);
    }
    flush();
  }

  /// Replaces the group's calls by one call at the place of the last (every buffer is allocated by then).
  void fuse(MutableArrayRef<Product> group) {
    const Product &first = group.front();
    CallOp last = group.back().call;
    OpBuilder b(last);
    SmallVector<Value> buffers{first.input};
    SmallVector<Attribute> templateArgs{b.getI64IntegerAttr(first.k)};
    SmallVector<Attribute> args{first.rows, b.getIndexAttr(0), first.codebook};
    for (const Product &p : group) {
      templateArgs.push_back(b.getI64IntegerAttr(p.n));
      args.append({p.codes, p.norms, b.getIndexAttr(static_cast<int64_t>(buffers.size()))});
      buffers.push_back(p.output);
    }
    templateArgs.append({b.getI64IntegerAttr(first.bits), first.layout});
    if (first.parallel)
      args.push_back(first.parallel);
    b.create<CallOp>(last.getLoc(), buffers, b.getStringAttr(cqMatmulI8Over(group.size())->name),
                     b.getArrayAttr(templateArgs), b.getArrayAttr(args));
    for (Product &p : group)
      p.call.erase();
  }
};
} // namespace
