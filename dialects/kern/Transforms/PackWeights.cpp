//===- PackWeights.cpp - kern-pack-weights ----------------------------------------------===//
//
// Picks the packed layout of every CQ weight and every dense (float32 / binary16) weight for the
// target (docs/quantization.md and docs/internals.md, "Packed layouts"), patches the `Layout`
// template argument of the calls that read it, and records the choice in the module attribute
// `kern.packed` for the bundle writer and manifest.json.
//
//===------------------------------------------------------------------------------------===//
#include "dialects/kern/Transforms/Passes.h"

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
// Values of the kernels' Layout template argument (cq::CodeLayout).
constexpr int64_t kLayoutLsb = cq::kLayoutLsb;
constexpr int64_t kLayoutPlanarPanel8 = cq::kLayoutPlanarPanel8;

StringRef layoutName(int64_t layout) { return layout == kLayoutPlanarPanel8 ? "cq-planar-panel8" : "cq-lsb"; }

/// Whether groups of g codes of `bits` bits hold whole planar chunks (cq::planar_chunk is capped at g otherwise;
/// cq::group_size never exceeds 128).
bool fullPlanarChunks(int g, int bits) { return cq::planar_chunk(g, bits) == cq::planar_chunk(128, bits); }

int64_t intArg(ArrayAttr a, size_t i) { return cast<IntegerAttr>(a[i]).getInt(); }

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

bool isDenseProduct(StringRef callee) {
  return callee == "matmul_f32" || callee == "matmul_f16" || callee == "logits_f32" || callee == "logits_f16";
}
bool isDenseGather(StringRef callee) { return callee == "embed_f32" || callee == "embed_f16"; }

/// Dense weights for x86 targets: `dense-panel3` (three rows side by side in chunks of 8, so that a decode tile of
/// three outputs reads one sequential stream) for every weight that only dense products and gathers read, with K
/// a multiple of 8 and the same [N][K] in every product; the products get the layout, the gathers (a tied
/// embedding table) the layout and the row count. Everything else stays row-major.
void packDenseWeights(ModuleOp module, StringRef target, Builder &b, SmallVector<Attribute> &packed) {
  if (!target.starts_with("x86-"))
    return;
  struct DenseUse {
    SmallVector<CallOp> calls;
    int64_t k = -1, rows = -1, bits = 32;
    bool packable = true;
  };
  llvm::MapVector<StringRef, DenseUse> uses;
  module.walk([&](CallOp call) {
    StringRef name = denseWeight(call), callee = call.getCallee();
    if (name.empty())
      return;
    DenseUse &u = uses[name];
    u.calls.push_back(call);
    ArrayAttr t = call.getTemplateArgs();
    if (isDenseProduct(callee) && t.size() == 2) {
      int64_t k = intArg(t, 0), n = intArg(t, 1);
      if ((u.rows >= 0 && u.rows != n) || (u.k >= 0 && u.k != k))
        u.packable = false;
      u.k = k, u.rows = n;
      u.bits = callee.ends_with("_f16") ? 16 : 32;
    } else if (!isDenseGather(callee) || t.size() != 1) {
      u.packable = false;  // another kernel reads it, or the call already has a layout
    }
  });
  for (auto &[name, u] : uses) {
    if (!u.packable || u.rows < 0 || !saguaro::kernels::dense::panel_fits(u.k))
      continue;
    bool gathersMatch = llvm::all_of(u.calls, [&](CallOp call) {
      return isDenseProduct(call.getCallee()) || intArg(call.getTemplateArgs(), 0) == u.k;
    });
    if (!gathersMatch)
      continue;
    for (CallOp call : u.calls) {
      SmallVector<Attribute> t(call.getTemplateArgs().getValue());
      t.push_back(b.getI64IntegerAttr(saguaro::kernels::dense::kPanel3));
      if (isDenseGather(call.getCallee()))
        t.push_back(b.getI64IntegerAttr(u.rows));
      call.setTemplateArgsAttr(b.getArrayAttr(t));
    }
    packed.push_back(b.getDictionaryAttr({b.getNamedAttr("weight", b.getStringAttr(name)),
                                          b.getNamedAttr("layout", b.getStringAttr("dense-panel3")),
                                          b.getNamedAttr("bits", b.getI64IntegerAttr(u.bits)),
                                          b.getNamedAttr("k", b.getI64IntegerAttr(u.k)),
                                          b.getNamedAttr("rows", b.getI64IntegerAttr(u.rows))}));
  }
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
    if (!isKnownTarget(target)) {
      module.emitError("kern-pack-weights: unknown target '") << target << "'";
      return signalPassFailure();
    }
    llvm::MapVector<StringRef, WeightUse> uses;
    module.walk([&](CallOp call) {
      StringRef callee = call.getCallee(), codes = codesWeight(call);
      if (codes.empty())
        return;
      WeightUse &u = uses[codes];
      u.calls.push_back(call);
      ArrayAttr t = call.getTemplateArgs();
      if (callee == "cq_matmul_i8" || callee == "cq_logits_i8") {
        u.k = intArg(t, 0), u.rows = intArg(t, 1), u.bits = intArg(t, 2);
      } else if (callee == "cq_matmul_f32" || callee == "cq_logits_f32") {
        u.floatActivations = true;
      }
    });
    Builder b(&getContext());
    SmallVector<Attribute> packed;
    for (auto &[codes, u] : uses) {
      int64_t layout = kLayoutLsb;
      if (target != "generic" && u.rows > 0 && !u.floatActivations &&
          fullPlanarChunks(cq::group_size(static_cast<int>(u.k)), static_cast<int>(u.bits)))
        layout = kLayoutPlanarPanel8;
      for (CallOp call : u.calls) {
        SmallVector<Attribute> t(call.getTemplateArgs().getValue());
        StringRef callee = call.getCallee();
        if (callee == "cq_matmul_i8" || callee == "cq_logits_i8") {
          t[3] = b.getI64IntegerAttr(layout);
        } else if (callee == "cq_embed_f32" && layout != kLayoutLsb) {
          t.resize(2);
          t.push_back(b.getI64IntegerAttr(layout));
          t.push_back(b.getI64IntegerAttr(u.rows));
        } else {
          continue;
        }
        call.setTemplateArgsAttr(b.getArrayAttr(t));
      }
      if (layout == kLayoutLsb)
        continue;
      StringRef name = codes.drop_back(strlen(".codes"));
      packed.push_back(b.getDictionaryAttr({b.getNamedAttr("weight", b.getStringAttr(name)),
                                            b.getNamedAttr("layout", b.getStringAttr(layoutName(layout))),
                                            b.getNamedAttr("bits", b.getI64IntegerAttr(u.bits)),
                                            b.getNamedAttr("k", b.getI64IntegerAttr(u.k)),
                                            b.getNamedAttr("rows", b.getI64IntegerAttr(u.rows))}));
    }
    packDenseWeights(module, target, b, packed);
    module->setAttr("kern.packed", b.getArrayAttr(packed));
    module->setAttr("kern.target", b.getStringAttr(target));
  }
};
} // namespace
