//===- VisionGraphBuilder.cpp - Gemma 4's vision tower -> llm dialect ------------------===//
//
// The `encode_image` entry: an image's patch rows and their grid positions in, its soft tokens
// in the decoder's width out (docs/gemma4-vision.md). Pixels go to [-1, 1], a linear patch
// embedding plus a learned 2-D position table, encoder layers with sandwich norms, q/k/v norms,
// 2-D RoPE and attention over every patch, clipped linears where the checkpoint has bounds,
// 3x3 pooling scaled by sqrt(width), the optional standardize, then the embedder's unscaled
// RMSNorm and projection. Values are named `v_l3_q` in "vision layer 3: attention".
//
//===------------------------------------------------------------------------------------===//
#include "compiler/import/GraphBuilder.h"

#include "dialects/common/ValueNames.h"
#include "dialects/llm/IR/LlmDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include <cmath>

using namespace mlir;
using namespace saguaro;

namespace {
class VisionBuilder {
public:
  VisionBuilder(OpBuilder &b, const ModelDesc &d)
      : b(b), d(d), v(d.vision), rows(v.maxSoftTokens * v.pooling * v.pooling) {}

  void build();

private:
  RankedTensorType act(int64_t features, int64_t n = 0) {
    return RankedTensorType::get({n ? n : rows, features}, b.getF32Type());
  }
  llm::WeightAttr w(const std::string &name) { return llm::WeightAttr::get(b.getContext(), name); }
  Location at(const std::string &value) { return names::at(b.getContext(), value, block); }
  static std::string layerValue(int64_t l) { return "v_l" + std::to_string(l) + "_"; }

  Value norm(Value x, const std::string &weight, const std::string &value) {
    return b.create<llm::RmsNormOp>(at(value), x.getType(), x, w(weight), b.getF32FloatAttr(v.normEps),
                                    b.getBoolAttr(false));
  }
  Value headNorm(Value x, const std::string &weight, int64_t heads, const std::string &value) {
    return b.create<llm::HeadRmsNormOp>(at(value), x.getType(), x, w(weight), b.getF32FloatAttr(v.normEps),
                                        b.getI64IntegerAttr(heads), b.getI64IntegerAttr(v.headDim),
                                        b.getBoolAttr(false));
  }
  Value clamp(Value x, const std::string &lo, const std::string &hi, const std::string &value) {
    return b.create<llm::ClampOp>(at(value), x, w(lo), w(hi));
  }
  /// A Gemma4ClippableLinear: its input and output clamped to the stored bounds when it has them.
  Value linear(Value x, const ClippedLinear &l, int64_t out, const std::string &value) {
    if (l.clipped())
      x = clamp(x, l.inMin, l.inMax, value + "_in");
    Value y = b.create<llm::LinearOp>(at(value), act(out, cast<RankedTensorType>(x.getType()).getDimSize(0)), x,
                                      w(l.weight));
    return l.clipped() ? clamp(y, l.outMin, l.outMax, value) : y;
  }
  Value rope(Value x, int64_t heads, const std::string &value) {
    return b.create<llm::Rope2dOp>(at(value), x.getType(), x, positions, b.getI64IntegerAttr(heads),
                                   b.getI64IntegerAttr(v.headDim), b.getF32FloatAttr(v.ropeTheta));
  }
  Value attention(Value h, int64_t layer);
  Value mlp(Value h, int64_t layer);

  OpBuilder &b;
  const ModelDesc &d;
  const VisionTower &v;
  int64_t rows; // patches per call: the soft-token budget times pooling^2
  Value positions;
  std::string block;
};

Value VisionBuilder::attention(Value h, int64_t layer) {
  const VisionTower::Layer &lw = v.layerWeights[layer];
  const std::string l = layerValue(layer);
  int64_t qDim = v.heads * v.headDim, kvDim = v.kvHeads * v.headDim;
  Value a = norm(h, lw.attnNorm, l + "attn_norm");
  Value q = linear(a, lw.q, qDim, l + "q"), k = linear(a, lw.k, kvDim, l + "k"), val = linear(a, lw.v, kvDim, l + "v");
  q = rope(headNorm(q, lw.qNorm, v.heads, l + "q_norm"), v.heads, l + "q_rope");
  k = rope(headNorm(k, lw.kNorm, v.kvHeads, l + "k_norm"), v.kvHeads, l + "k_rope");
  val = headNorm(val, v.headOnes, v.kvHeads, l + "v_norm");
  // Scale 1: the q and k norms set the logits' scale (Gemma4VisionAttention).
  Value o = b.create<llm::BidirectionalAttentionOp>(at(l + "attn"), q.getType(), q, k, val,
                                                    b.getI64IntegerAttr(v.heads), b.getI64IntegerAttr(v.kvHeads),
                                                    b.getI64IntegerAttr(v.headDim), b.getF32FloatAttr(1.0f));
  return norm(linear(o, lw.o, v.dim, l + "attn_out"), lw.postAttnNorm, l + "attn_post_norm");
}

Value VisionBuilder::mlp(Value h, int64_t layer) {
  const VisionTower::Layer &lw = v.layerWeights[layer];
  const std::string l = layerValue(layer);
  Value m = norm(h, lw.ffnNorm, l + "mlp_norm");
  Value gate = linear(m, lw.gate, v.hidden, l + "mlp_gate"), up = linear(m, lw.up, v.hidden, l + "mlp_up");
  Value gated = b.create<llm::GluOp>(at(l + "mlp_gated"), gate.getType(), gate, up, b.getStringAttr("gelu_tanh"));
  return norm(linear(gated, lw.down, v.dim, l + "mlp_out"), lw.postFfnNorm, l + "mlp_post_norm");
}

void VisionBuilder::build() {
  const int64_t width = 3 * v.patchSize * v.patchSize, softTokens = v.maxSoftTokens;
  auto patchesType = act(width);
  auto positionsType = RankedTensorType::get({rows, 2}, b.getI32Type());
  auto fn = b.create<func::FuncOp>(b.getUnknownLoc(), "encode_image",
                                   b.getFunctionType({patchesType, positionsType}, {act(d.dim, softTokens)}));
  fn->setAttr("llm.entry", b.getStringAttr("vision"));
  fn->setAttr("llm.pooling", b.getI64IntegerAttr(v.pooling));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(fn.addEntryBlock());
  positions = fn.getArgument(1);

  // Gemma4VisionPatchEmbedder: pixels in [0, 1] to [-1, 1], a linear patch embedding, plus the position table.
  block = "vision: patch embedding";
  Value x = b.create<llm::ShiftScaleOp>(at("v_pixels"), fn.getArgument(0), b.getF32FloatAttr(0.5f),
                                        b.getF32FloatAttr(2.0f));
  Value h = linear(x, ClippedLinear{v.patchProjection}, v.dim, "v_residual");
  h = b.create<llm::PositionEmbed2dOp>(at("v_residual"), h, positions, w(v.positionTable),
                                       b.getI64IntegerAttr(v.positionRows));
  for (int64_t l = 0; l < v.layers; ++l) {
    block = "vision layer " + std::to_string(l) + ": attention";
    h = b.create<llm::AddOp>(at("v_residual"), h, attention(h, l));
    block = "vision layer " + std::to_string(l) + ": mlp";
    h = b.create<llm::AddOp>(at("v_residual"), h, mlp(h, l));
  }
  // Gemma4VisionPooler: the mean of each pooling x pooling block of patches, times sqrt(width).
  block = "vision: pooling";
  Value s = b.create<llm::PoolPatchesOp>(at("v_soft"), act(v.dim, softTokens), h, positions,
                                         b.getI64IntegerAttr(v.pooling),
                                         b.getF32FloatAttr(static_cast<float>(std::sqrt(double(v.dim)))));
  if (!v.stdBias.empty())
    s = b.create<llm::StandardizeOp>(at("v_soft"), s, w(v.stdBias), w(v.stdScale));
  // Gemma4MultimodalEmbedder: an RMSNorm without scale, then the projection into the decoder's width.
  block = "vision: embedder";
  Value soft = b.create<llm::LinearOp>(at("v_embedded"), act(d.dim, softTokens), norm(s, v.dimOnes, "v_soft_norm"),
                                       w(v.embedProjection));
  b.create<func::ReturnOp>(at("v_embedded"), soft);
}
} // namespace

void saguaro::buildVisionEntry(OpBuilder &b, const ModelDesc &desc) { VisionBuilder(b, desc).build(); }
