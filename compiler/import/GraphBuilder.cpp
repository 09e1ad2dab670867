//===- GraphBuilder.cpp - ModelDesc -> llm dialect -------------------------------------===//
//
// One decoder description covers llama2.c, Llama, Qwen3, Gemma 3 and Gemma 4: the differences are
// data (norm form, q/k/v norms, sandwich norms, RoPE bases, partial rotary and windows per layer,
// head dims and MLP widths per layer, soft-caps), plus Gemma 4's structure: per-layer embeddings,
// layers that read an earlier layer's KV cache, and a scale on each layer's output.
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
  Value headNorm(Value x, const std::string &weight, int64_t heads, int64_t headDim, Location loc) {
    return b.create<llm::HeadRmsNormOp>(loc, x.getType(), x, w(weight), f32(d.normEps), b.getI64IntegerAttr(heads),
                                        b.getI64IntegerAttr(headDim), b.getBoolAttr(d.normAddOne));
  }
  Value scale(Value x, float factor, Location loc, const std::string &weight = "") {
    return b.create<llm::ScaleOp>(loc, x, f32(factor), weight.empty() ? llm::WeightAttr() : w(weight));
  }
  Value attention(Value x, int64_t layer);
  Value mlp(Value x, int64_t layer);
  Value perLayerInputs(Value tokens, Value embedded);
  Value perLayerInput(Value x, Value ple, int64_t layer);

  OpBuilder &b;
  const ModelDesc &d;
  int64_t rows;
  std::string block; // "embedding", "layer 3: attention", "layer 3: mlp", "output"
};

Value EntryBuilder::attention(Value x, int64_t layer) {
  const LayerWeights &lw = d.layerWeights[layer];
  const LayerAttention &la = d.layerAttention[layer];
  int64_t headDim = d.headDimOf(layer), kvHeads = d.kvHeadsOf(layer);
  int64_t qDim = d.heads * headDim, kvDim = kvHeads * headDim;
  const std::string l = layerValue(layer);
  auto rope = [&](Value t, int64_t heads, const std::string &value) {
    return b.create<llm::RopeOp>(at(value), t.getType(), t, b.getI64IntegerAttr(heads), b.getI64IntegerAttr(headDim),
                                 f32(la.ropeTheta), f32(la.ropePosScale), b.getI64IntegerAttr(d.ropeStyle),
                                 la.ropeLlama3.empty() ? nullptr : b.getDenseF32ArrayAttr(la.ropeLlama3),
                                 la.ropePairs > 0 ? b.getI64IntegerAttr(la.ropePairs) : nullptr);
  };
  // A KV-shared layer computes no K/V: it attends over the cache of layer la.kvLayer. The products come first, so
  // that kern-fuse-cq-products can run the three of one activation together.
  bool ownsKv = la.kvLayer < 0;
  Value q = linear(x, lw.wq, qDim, at(l + "q")), k, v;
  if (ownsKv)
    k = linear(x, lw.wk, kvDim, at(l + "k")), v = linear(x, lw.wv, kvDim, at(l + "v"));
  if (!lw.qNorm.empty())
    q = headNorm(q, lw.qNorm, d.heads, headDim, at(l + "q_norm"));
  if (ownsKv && !lw.kNorm.empty())
    k = headNorm(k, lw.kNorm, kvHeads, headDim, at(l + "k_norm"));
  if (ownsKv && !lw.vNorm.empty())
    v = headNorm(v, lw.vNorm, kvHeads, headDim, at(l + "v_norm"));
  q = rope(q, d.heads, l + "q_rope");
  if (ownsKv)
    k = rope(k, kvHeads, l + "k_rope");
  Value a = b.create<llm::AttentionOp>(at(l + "attn"), q.getType(), q, k, v, b.getI64IntegerAttr(layer),
                                       b.getI64IntegerAttr(d.heads), b.getI64IntegerAttr(kvHeads),
                                       b.getI64IntegerAttr(headDim), b.getI64IntegerAttr(la.window),
                                       f32(d.attnScale), f32(d.attnSoftcap),
                                       ownsKv ? nullptr : b.getI64IntegerAttr(la.kvLayer));
  Value o = linear(a, lw.wo, d.dim, at(l + "attn_out"));
  return lw.postAttnNorm.empty() ? o : norm(o, lw.postAttnNorm, at(l + "attn_post_norm"));
}

Value EntryBuilder::mlp(Value x, int64_t layer) {
  const LayerWeights &lw = d.layerWeights[layer];
  const std::string l = layerValue(layer);
  // Its gate and up products are `x_l3_mlp_gate` and `x_l3_mlp_up` (names::derived).
  Value m = b.create<llm::GatedMlpOp>(at(l + "mlp"), x.getType(), x, w(lw.gate), w(lw.up), w(lw.down),
                                      b.getI64IntegerAttr(d.hiddenOf(layer)), b.getStringAttr(d.activation));
  return lw.postFfnNorm.empty() ? m : norm(m, lw.postFfnNorm, at(l + "mlp_post_norm"));
}

/// Gemma 4's per-layer inputs of every layer, [rows, layers * D]: a gathered table row plus a projection of the
/// scaled token embedding, normed per layer, their sum scaled (docs/gemma4.md).
Value EntryBuilder::perLayerInputs(Value tokens, Value embedded) {
  const PerLayerEmbedding &ple = d.ple;
  int64_t width = d.layers * ple.dim;
  Value table = b.create<llm::EmbedOp>(at("x_ple_table"), act(width), tokens, w(ple.table), f32(ple.tableScale));
  Value projected = scale(linear(embedded, ple.projection, width, at("x_ple_projected")), ple.projectionScale,
                          at("x_ple_projected"));
  projected = headNorm(projected, ple.projectionNorm, d.layers, ple.dim, at("x_ple_projected"));
  return scale(b.create<llm::AddOp>(at("x_ple"), projected, table), ple.sumScale, at("x_ple"));
}

/// Layer `layer`'s per-layer-input block: gelu_tanh(gate(x)) times its slice of the per-layer inputs, projected
/// back to the model width and normed.
Value EntryBuilder::perLayerInput(Value x, Value ple, int64_t layer) {
  const LayerWeights &lw = d.layerWeights[layer];
  const std::string l = layerValue(layer);
  Value gate = linear(x, lw.pleGate, d.ple.dim, at(l + "ple_gate"));
  Value slice = b.create<llm::ColumnSliceOp>(at(l + "ple"), act(d.ple.dim), ple,
                                             b.getI64IntegerAttr(layer * d.ple.dim));
  Value gated = b.create<llm::GluOp>(at(l + "ple_gated"), gate.getType(), gate, slice, b.getStringAttr(d.activation));
  return norm(linear(gated, lw.pleProjection, d.dim, at(l + "ple_out")), lw.plePostNorm, at(l + "ple_post_norm"));
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
  // An encoder's soft tokens replace their placeholders' embeddings before anything reads them (the per-layer
  // inputs' projection included), in a prefill only: decode steps never carry them.
  if ((d.vision.layers > 0 || d.audio.layers > 0) && kind == "prefill")
    h = b.create<llm::InjectEmbeddingsOp>(at("x_residual"), h);
  Value ple = d.ple.dim > 0 ? perLayerInputs(fn.getArgument(0), h) : Value();
  for (int64_t l = 0; l < d.layers; ++l) {
    const LayerWeights &lw = d.layerWeights[l];
    block = "layer " + std::to_string(l) + ": attention";
    Value a = attention(norm(h, lw.attnNorm, at(layerValue(l) + "attn_norm")), l);
    h = b.create<llm::AddOp>(at("x_residual"), h, a);
    block = "layer " + std::to_string(l) + ": mlp";
    Value m = mlp(norm(h, lw.ffnNorm, at(layerValue(l) + "mlp_norm")), l);
    h = b.create<llm::AddOp>(at("x_residual"), h, m);
    if (ple) {
      block = "layer " + std::to_string(l) + ": per-layer input";
      h = b.create<llm::AddOp>(at("x_residual"), h, perLayerInput(h, ple, l));
    }
    if (!lw.layerScalar.empty())
      h = scale(h, 1.0f, at("x_residual"), lw.layerScalar);
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
  if (desc.vision.layers > 0)
    buildVisionEntry(b, desc);
  if (desc.audio.layers > 0)
    buildAudioEntry(b, desc);
  return module;
}
