//===- GraphBuilder.cpp - ModelDesc -> llm dialect -------------------------------------===//
//
// One decoder description covers llama2.c, Llama, Qwen3 and Gemma 3: the differences are
// data (norm form, q/k norms, sandwich norms, RoPE bases and windows per layer, soft-caps).
// Every op is located at the value it makes and the block it belongs to
// (dialects/common/ValueNames.h): `x_l3_q` in "layer 3: attention", which model.cpp shows.
//
//===------------------------------------------------------------------------------------===//
#include "compiler/import/GraphBuilder.h"

#include "dialects/common/ValueNames.h"
#include "dialects/llm/IR/LlmDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace saguaro;

namespace {
class EntryBuilder {
public:
  EntryBuilder(OpBuilder &b, const ModelDesc &d, int64_t rows) : b(b), d(d), rows(rows) {}

  void build(StringRef name, StringRef kind);

private:
  RankedTensorType act(int64_t features) { return RankedTensorType::get({rows, features}, b.getF32Type()); }
  llm::WeightAttr w(const std::string &name) { return llm::WeightAttr::get(b.getContext(), name); }
  FloatAttr f32(float v) { return b.getF32FloatAttr(v); }

  /// Where `value` is made: in the current block.
  Location at(const std::string &value) { return names::at(b.getContext(), value, block); }
  /// The prefix of layer `l`'s values: "x_l3_".
  static std::string layerValue(int64_t l) { return "x_l" + std::to_string(l) + "_"; }

  Value norm(Value x, const std::string &weight, Location loc) {
    return b.create<llm::RmsNormOp>(loc, x.getType(), x, w(weight), f32(d.normEps), b.getBoolAttr(d.normAddOne));
  }
  Value linear(Value x, const std::string &weight, int64_t out, Location loc) {
    return b.create<llm::LinearOp>(loc, act(out), x, w(weight));
  }
  Value attention(Value x, int64_t layer);
  Value mlp(Value x, int64_t layer);

  OpBuilder &b;
  const ModelDesc &d;
  int64_t rows;
  std::string block; // "embedding", "layer 3: attention", "layer 3: mlp", "output"
};

Value EntryBuilder::attention(Value x, int64_t layer) {
  const LayerWeights &lw = d.layerWeights[layer];
  const LayerAttention &la = d.layerAttention[layer];
  int64_t qDim = d.heads * d.headDim, kvDim = d.kvHeads * d.headDim;
  const std::string l = layerValue(layer);
  Value q = linear(x, lw.wq, qDim, at(l + "q")), k = linear(x, lw.wk, kvDim, at(l + "k")),
        v = linear(x, lw.wv, kvDim, at(l + "v"));
  if (!lw.qNorm.empty()) {
    q = b.create<llm::HeadRmsNormOp>(at(l + "q_norm"), q.getType(), q, w(lw.qNorm), f32(d.normEps),
                                     b.getI64IntegerAttr(d.heads), b.getI64IntegerAttr(d.headDim),
                                     b.getBoolAttr(d.normAddOne));
    k = b.create<llm::HeadRmsNormOp>(at(l + "k_norm"), k.getType(), k, w(lw.kNorm), f32(d.normEps),
                                     b.getI64IntegerAttr(d.kvHeads), b.getI64IntegerAttr(d.headDim),
                                     b.getBoolAttr(d.normAddOne));
  }
  auto rope = [&](Value t, int64_t heads, const std::string &value) {
    return b.create<llm::RopeOp>(at(value), t.getType(), t, b.getI64IntegerAttr(heads),
                                 b.getI64IntegerAttr(d.headDim), f32(la.ropeTheta), f32(la.ropePosScale),
                                 b.getI64IntegerAttr(d.ropeStyle),
                                 la.ropeLlama3.empty() ? nullptr : b.getDenseF32ArrayAttr(la.ropeLlama3));
  };
  q = rope(q, d.heads, l + "q_rope");
  k = rope(k, d.kvHeads, l + "k_rope");
  Value a = b.create<llm::AttentionOp>(at(l + "attn"), q.getType(), q, k, v, b.getI64IntegerAttr(layer),
                                       b.getI64IntegerAttr(d.heads), b.getI64IntegerAttr(d.kvHeads),
                                       b.getI64IntegerAttr(d.headDim), b.getI64IntegerAttr(la.window),
                                       f32(d.attnScale), f32(d.attnSoftcap));
  Value o = linear(a, lw.wo, d.dim, at(l + "attn_out"));
  return lw.postAttnNorm.empty() ? o : norm(o, lw.postAttnNorm, at(l + "attn_post_norm"));
}

Value EntryBuilder::mlp(Value x, int64_t layer) {
  const LayerWeights &lw = d.layerWeights[layer];
  const std::string l = layerValue(layer);
  // Its gate and up products are `x_l3_mlp_gate` and `x_l3_mlp_up` (names::derived).
  Value m = b.create<llm::GatedMlpOp>(at(l + "mlp"), x.getType(), x, w(lw.gate), w(lw.up), w(lw.down),
                                      b.getI64IntegerAttr(d.hidden), b.getStringAttr(d.activation));
  return lw.postFfnNorm.empty() ? m : norm(m, lw.postFfnNorm, at(l + "mlp_post_norm"));
}

void EntryBuilder::build(StringRef name, StringRef kind) {
  auto tokensType = RankedTensorType::get({rows}, b.getI32Type());
  auto fn = b.create<func::FuncOp>(b.getUnknownLoc(), name, b.getFunctionType({tokensType}, {act(d.vocab)}));
  fn->setAttr("llm.entry", b.getStringAttr(kind));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(fn.addEntryBlock());

  // The residual stream: the embedding, then every block's output added to it in place.
  block = "embedding";
  Value h = b.create<llm::EmbedOp>(at("x_residual"), act(d.dim), fn.getArgument(0), w(d.tokEmbedding),
                                   f32(d.embedScale));
  for (int64_t l = 0; l < d.layers; ++l) {
    const LayerWeights &lw = d.layerWeights[l];
    block = "layer " + std::to_string(l) + ": attention";
    Value a = attention(norm(h, lw.attnNorm, at(layerValue(l) + "attn_norm")), l);
    h = b.create<llm::AddOp>(at("x_residual"), h, a);
    block = "layer " + std::to_string(l) + ": mlp";
    Value m = mlp(norm(h, lw.ffnNorm, at(layerValue(l) + "mlp_norm")), l);
    h = b.create<llm::AddOp>(at("x_residual"), h, m);
    // Outside any block: the residual add it reads may be fused into the next layer's norm.
    if (l + 1 == d.hiddenTapLayer)
      b.create<llm::HiddenTapOp>(names::at(b.getContext(), "x_residual", ""), h, b.getI64IntegerAttr(l + 1));
  }
  block = "output";
  Value logits = b.create<llm::LogitsOp>(at("logits"), act(d.vocab), norm(h, d.finalNorm, at("x_final_norm")),
                                         w(d.lmHead), f32(d.finalSoftcap));
  b.create<func::ReturnOp>(at("logits"), logits);
}
} // namespace

namespace {
/// `probe(hidden rows) -> p(wrong)`: the entry the runtime calls after generation (llm.probe_head).
void buildProbeEntry(OpBuilder &b, const ModelDesc &d) {
  Location loc = b.getUnknownLoc();
  auto rowsType = RankedTensorType::get({d.maxSeq, d.dim}, b.getF32Type());
  auto resultType = RankedTensorType::get({1, 1}, b.getF32Type());
  auto fn = b.create<func::FuncOp>(loc, "probe", b.getFunctionType({rowsType}, {resultType}));
  fn->setAttr("llm.entry", b.getStringAttr("probe"));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(fn.addEntryBlock());
  Value p = b.create<llm::ProbeHeadOp>(names::at(b.getContext(), "x_probe", "probe"), resultType, fn.getArgument(0), b.getStringAttr("probe."),
                                       b.getI64IntegerAttr(d.probe.h), b.getI64IntegerAttr(d.probe.m1),
                                       b.getI64IntegerAttr(d.probe.m2));
  b.create<func::ReturnOp>(loc, p);
}
} // namespace

OwningOpRef<ModuleOp> saguaro::buildGraph(MLIRContext &ctx, const ModelDesc &desc, int64_t prefillChunk) {
  ctx.loadDialect<llm::LlmDialect, func::FuncDialect>();
  OpBuilder b(&ctx);
  OwningOpRef<ModuleOp> module = ModuleOp::create(b.getUnknownLoc());
  (*module)->setAttr("llm.max_seq", b.getI64IntegerAttr(desc.maxSeq));
  (*module)->setAttr("llm.model", b.getStringAttr(desc.name));
  b.setInsertionPointToEnd(module->getBody());
  EntryBuilder(b, desc, prefillChunk).build("prefill", "prefill");
  EntryBuilder(b, desc, 1).build("decode", "decode");
  if (desc.probe.h > 0)
    buildProbeEntry(b, desc);
  return module;
}
