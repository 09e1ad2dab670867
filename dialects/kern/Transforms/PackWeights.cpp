//===- PackWeights.cpp - kern-pack-weights ----------------------------------------------===//
//
// Picks the packed layout of every CQ weight and every dense (float32 / binary16) weight for the
// target (docs/quantization.md and docs/internals.md, "Packed layouts"), patches the `Layout`
// template argument of the calls that read it, and records the choice in the module attribute
// `kern.packed` for the bundle writer and manifest.json.
//
//===------------------------------------------------------------------------------------===//
#include "dialects/kern/Transforms/Passes.h"

#include "dialects/kern/IR/KernelCatalogue.h"
#include "saguaro/kernels/cq_format.h"
#include "saguaro/kernels/dense_layout.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"

namespace saguaro::kern {
#define GEN_PASS_DEF_PACKWEIGHTS
#include "dialects/kern/Transforms/Passes.h.inc"
} // namespace saguaro::kern

using namespace mlir;
using namespace saguaro::kern;

namespace {
namespace cq = saguaro::kernels::cq;
// The layouts this pass picks (saguaro/kernels/layouts.h).
constexpr StringLiteral kCqLsb = "cq-lsb", kCqPlanarPanel8 = "cq-planar-panel8", kDensePanel3 = "dense-panel3";

/// Whether groups of g codes of `bits` bits hold whole planar chunks (cq::planar_chunk is capped at g otherwise;
/// cq::group_size never exceeds 128).
bool fullPlanarChunks(int g, int bits) { return cq::planar_chunk(g, bits) == cq::planar_chunk(128, bits); }

/// The CQ codes weight a call reads (the `#kern.weight<"….codes">` argument), or "".
StringRef codesWeight(CallOp call) {
  for (Attribute a : call.getArgs())
    if (auto w = dyn_cast<WeightAttr>(a))
      if (w.getName().ends_with(".codes"))
        return w.getName();
  return "";
}

/// The dense weight a call reads (its `#kern.weight` argument that is not CQ codes or norms), or "".
StringRef denseWeight(CallOp call) {
  for (Attribute a : call.getArgs())
    if (auto w = dyn_cast<WeightAttr>(a))
      if (!w.getName().ends_with(".codes") && !w.getName().ends_with(".norms"))
        return w.getName();
  return "";
}

/// The call as a dense matrix product (matmul_*, logits_*) or gather (embed_*), or nothing.
std::optional<KernelCall> denseProduct(CallOp call) {
  for (const KernelSignature *k : {&kMatmulF32, &kMatmulF16, &kLogitsF32, &kLogitsF16})
    if (auto c = KernelCall::of(call, *k))
      return c;
  return std::nullopt;
}
std::optional<KernelCall> denseGather(CallOp call) {
  for (const KernelSignature *k : {&kEmbedF32, &kEmbedF16})
    if (auto c = KernelCall::of(call, *k))
      return c;
  return std::nullopt;
}
bool isF16(const KernelCall &c) { return &c.kernel() == &kMatmulF16 || &c.kernel() == &kLogitsF16; }

/// Dense weights for x86 targets: `dense-panel3` (three rows side by side in chunks of 8, so that a decode tile of
/// three outputs reads one sequential stream) for every weight that only dense products and gathers read, with K
/// a multiple of 8 and the same [N][K] in every product; the products get the layout, the gathers (a tied
/// embedding table) the layout and the row count. Everything else stays row-major.
void packDenseWeights(ModuleOp module, const saguaro::kernels::TargetInfo &target, Builder &b,
                      SmallVector<Attribute> &packed) {
  if (target.arch != saguaro::kernels::TargetArch::x86_64)
    return;
  struct DenseUse {
    SmallVector<CallOp> calls;
    int64_t k = -1, rows = -1, bits = 32;
    bool packable = true;
  };
  llvm::MapVector<StringRef, DenseUse> uses;
  module.walk([&](CallOp call) {
    StringRef name = denseWeight(call);
    if (name.empty())
      return;
    DenseUse &u = uses[name];
    u.calls.push_back(call);
    std::optional<KernelCall> product = denseProduct(call), gather = denseGather(call);
    if (product && !product->param("Layout")) {
      int64_t k = product->intParam("K"), n = product->intParam("N");
      if ((u.rows >= 0 && u.rows != n) || (u.k >= 0 && u.k != k))
        u.packable = false;
      u.k = k, u.rows = n;
      u.bits = isF16(*product) ? 16 : 32;
    } else if (!gather || gather->param("Layout")) {
      u.packable = false;  // another kernel reads it, or the call already has a layout
    }
  });
  for (auto &[name, u] : uses) {
    if (!u.packable || u.rows < 0 || !saguaro::kernels::dense::panel_fits(u.k))
      continue;
    bool gathersMatch = llvm::all_of(u.calls, [&](CallOp call) {
      std::optional<KernelCall> gather = denseGather(call);
      return !gather || gather->intParam("D") == u.k;
    });
    if (!gathersMatch)
      continue;
    Attribute layout = LayoutAttr::get(b.getContext(), kDensePanel3);
    for (CallOp call : u.calls) {
      if (std::optional<KernelCall> gather = denseGather(call)) {
        gather->setParam("Layout", layout);
        gather->setParam("Vocab", b.getI64IntegerAttr(u.rows));
      } else {
        denseProduct(call)->setParam("Layout", layout);
      }
    }
    packed.push_back(b.getDictionaryAttr({b.getNamedAttr("weight", b.getStringAttr(name)),
                                          b.getNamedAttr("layout", b.getStringAttr(kDensePanel3)),
                                          b.getNamedAttr("bits", b.getI64IntegerAttr(u.bits)),
                                          b.getNamedAttr("k", b.getI64IntegerAttr(u.k)),
                                          b.getNamedAttr("rows", b.getI64IntegerAttr(u.rows))}));
  }
}

/// The call as an int8 CQ product (cq_matmul_i8, cq_logits_i8), or nothing.
std::optional<KernelCall> intProduct(CallOp call) {
  if (auto c = KernelCall::of(call, kCqMatmulI8))
    return c;
  return KernelCall::of(call, kCqLogitsI8);
}

struct WeightUse {
  SmallVector<CallOp> calls;
  int64_t k = 0, rows = 0, bits = 0;
  bool floatActivations = false;
};

struct PackWeightsPass : saguaro::kern::impl::PackWeightsBase<PackWeightsPass> {
  using PackWeightsBase::PackWeightsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    const saguaro::kernels::TargetInfo *info = findTarget(target);
    if (!info) {
      module.emitError("kern-pack-weights: unknown target '") << target << "'";
      return signalPassFailure();
    }
    llvm::MapVector<StringRef, WeightUse> uses;
    module.walk([&](CallOp call) {
      StringRef codes = codesWeight(call);
      if (codes.empty())
        return;
      WeightUse &u = uses[codes];
      u.calls.push_back(call);
      if (std::optional<KernelCall> c = intProduct(call)) {
        u.k = c->intParam("K"), u.rows = c->intParam("N"), u.bits = c->intParam("Bits");
      } else if (KernelCall::of(call, kCqMatmulF32) || KernelCall::of(call, kCqLogitsF32)) {
        u.floatActivations = true;
      }
    });
    Builder b(&getContext());
    SmallVector<Attribute> packed;
    for (auto &[codes, u] : uses) {
      StringRef layout = kCqLsb;
      if (info->arch != saguaro::kernels::TargetArch::any && u.rows > 0 && !u.floatActivations &&
          fullPlanarChunks(cq::group_size(static_cast<int>(u.k)), static_cast<int>(u.bits)))
        layout = kCqPlanarPanel8;
      Attribute layoutAttr = LayoutAttr::get(b.getContext(), layout);
      for (CallOp call : u.calls) {
        if (std::optional<KernelCall> c = intProduct(call)) {
          c->setParam("Layout", layoutAttr);
        } else if (std::optional<KernelCall> gather = KernelCall::of(call, kCqEmbedF32); gather && layout != kCqLsb) {
          gather->setParam("Layout", layoutAttr);
          gather->setParam("Vocab", b.getI64IntegerAttr(u.rows));
        }
      }
      if (layout == kCqLsb)
        continue;
      StringRef name = codes.drop_back(strlen(".codes"));
      packed.push_back(b.getDictionaryAttr({b.getNamedAttr("weight", b.getStringAttr(name)),
                                            b.getNamedAttr("layout", b.getStringAttr(layout)),
                                            b.getNamedAttr("bits", b.getI64IntegerAttr(u.bits)),
                                            b.getNamedAttr("k", b.getI64IntegerAttr(u.k)),
                                            b.getNamedAttr("rows", b.getI64IntegerAttr(u.rows))}));
    }
    packDenseWeights(module, *info, b, packed);
    module->setAttr("kern.packed", b.getArrayAttr(packed));
    module->setAttr("kern.target", b.getStringAttr(target));
  }
};
} // namespace
