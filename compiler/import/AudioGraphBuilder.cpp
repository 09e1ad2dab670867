//===- AudioGraphBuilder.cpp - Gemma 4's audio tower -> llm dialect --------------------===//
//
// The `encode_audio` entry: a clip's valid log-mel frames in (time-major, [frames, mel]), one
// soft token per 4 frames (rounded up) in the decoder's width out (docs/gemma4-audio.md); and
// `encode_audio_step`, the same graph for a streamed clip's next frames (llm.entry =
// "audio_step": its stateful ops lower to the kernels' step forms). Two
// subsampling convolutions, the input projection, conformer layers (feed-forward half steps,
// local attention with relative position keys, the gated causal light convolution, each
// layer's closing norm), the output projection and the embedder's unscaled RMSNorm and
// projection. Values are named `a_l3_q` in "audio layer 3: attention".
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
/// Gemma4RMSNorm's default epsilon, which the feed-forward norms and the layer's own norms keep whatever the
/// config's rms_norm_eps.
constexpr float kDefaultEps = 1e-6f;

class AudioBuilder {
public:
  AudioBuilder(OpBuilder &b, const ModelDesc &d) : b(b), d(d), a(d.audio) {}

  /// The entry `name` of kind `kind` ("audio" or "audio_step").
  void build(StringRef name, StringRef kind);

private:
  /// Frames after `halvings` stride-2 convolutions of the compiled maximum.
  int64_t framesAfter(int64_t halvings) {
    int64_t n = a.maxFrames;
    for (int64_t i = 0; i < halvings; ++i)
      n = (n + 1) / 2;
    return n;
  }
  RankedTensorType act(int64_t features, int64_t rows) { return RankedTensorType::get({rows, features}, b.getF32Type()); }
  static int64_t widthOf(Value x) { return cast<RankedTensorType>(x.getType()).getDimSize(1); }
  static int64_t rowsOf(Value x) { return cast<RankedTensorType>(x.getType()).getDimSize(0); }
  llm::WeightAttr w(const std::string &name) { return llm::WeightAttr::get(b.getContext(), name); }
  Location at(const std::string &value) { return names::at(b.getContext(), value, block); }
  static std::string layerValue(int64_t l) { return "a_l" + std::to_string(l) + "_"; }

  Value norm(Value x, const std::string &weight, float eps, const std::string &value) {
    return b.create<llm::RmsNormOp>(at(value), x.getType(), x, w(weight), b.getF32FloatAttr(eps),
                                    b.getBoolAttr(false));
  }
  Value clamp(Value x, const std::string &lo, const std::string &hi, const std::string &value) {
    return b.create<llm::ClampOp>(at(value), x, w(lo), w(hi));
  }
  /// clip(x) before a norm: the gradient clipping bound (a no-op for finite values below it).
  Value clip(Value x, const std::string &value) { return clamp(x, a.clipLow, a.clipHigh, value); }
  /// A Gemma4ClippableLinear: its input and output clamped to the stored bounds when it has them.
  Value linear(Value x, const ClippedLinear &l, int64_t out, const std::string &value) {
    if (l.clipped())
      x = clamp(x, l.inMin, l.inMax, value + "_in");
    Value y = b.create<llm::LinearOp>(at(value), act(out, rowsOf(x)), x, w(l.weight));
    return l.clipped() ? clamp(y, l.outMin, l.outMax, value) : y;
  }
  Value feedForward(Value h, const AudioTower::FeedForward &f, const std::string &value);
  Value attention(Value h, int64_t layer);
  Value lightConv(Value h, int64_t layer);

  OpBuilder &b;
  const ModelDesc &d;
  const AudioTower &a;
  std::string block;
};

/// Gemma4AudioFeedForward: x + residual_weight · post_norm(clip(down(silu(up(pre_norm(clip(x))))))).
Value AudioBuilder::feedForward(Value h, const AudioTower::FeedForward &f, const std::string &value) {
  Value x = norm(clip(h, value + "clip"), f.preNorm, kDefaultEps, value + "norm");
  Value up = linear(x, f.up, 4 * a.dim, value + "up");
  up = b.create<llm::SiluOp>(at(value + "act"), up);
  Value down = linear(up, f.down, a.dim, value + "down");
  Value out = norm(clip(down, value + "out_clip"), f.postNorm, kDefaultEps, value + "out");
  out = b.create<llm::ScaleOp>(at(value + "out"), out, b.getF32FloatAttr(a.residualWeight), llm::WeightAttr());
  return b.create<llm::AddOp>(at("a_residual"), h, out);
}

/// Gemma4AudioAttention between the layer's pre- and post-attention norms, with its residual.
Value AudioBuilder::attention(Value h, int64_t layer) {
  const AudioTower::Layer &lw = a.layerWeights[layer];
  const std::string l = layerValue(layer);
  Value x = norm(clip(h, l + "attn_clip"), lw.attnPreNorm, kDefaultEps, l + "attn_norm");
  Value q = linear(x, lw.q, a.dim, l + "q"), k = linear(x, lw.k, a.dim, l + "k"), v = linear(x, lw.v, a.dim, l + "v");
  Value o = b.create<llm::LocalAttentionOp>(
      at(l + "attn"), q.getType(), q, k, v, b.getI64IntegerAttr(a.heads), b.getI64IntegerAttr(a.headDim),
      w(lw.perDimScale), w(lw.relativeTable), b.getI64IntegerAttr(a.chunk), b.getI64IntegerAttr(a.past),
      b.getI64IntegerAttr(a.future), b.getF32FloatAttr(a.logitCap));
  o = linear(o, lw.post, a.dim, l + "attn_out");
  o = norm(clip(o, l + "attn_out_clip"), lw.attnPostNorm, kDefaultEps, l + "attn_post_norm");
  return b.create<llm::AddOp>(at("a_residual"), h, o);
}

/// Gemma4AudioLightConv1d: x + linear_end(silu(conv_norm(clip(dwconv(glu(linear_start(pre_norm(x)))))))).
Value AudioBuilder::lightConv(Value h, int64_t layer) {
  const AudioTower::Layer &lw = a.layerWeights[layer];
  const std::string l = layerValue(layer);
  Value x = linear(norm(h, lw.convPreNorm, a.normEps, l + "conv_norm_in"), lw.convStart, 2 * a.dim, l + "conv_start");
  Value c = b.create<llm::GatedCausalConvOp>(at(l + "conv"), act(a.dim, rowsOf(x)), x, w(lw.depthwise),
                                             b.getI64IntegerAttr(a.convKernel));
  c = b.create<llm::SiluOp>(at(l + "conv_act"), norm(clip(c, l + "conv_clip"), lw.convNorm, a.normEps, l + "conv_norm"));
  return b.create<llm::AddOp>(at("a_residual"), h, linear(c, lw.convEnd, a.dim, l + "conv_end"));
}

void AudioBuilder::build(StringRef name, StringRef kind) {
  auto featuresType = act(a.mel, framesAfter(0));
  const int64_t tokens = framesAfter(2);
  auto fn = b.create<func::FuncOp>(b.getUnknownLoc(), name, b.getFunctionType({featuresType}, {act(d.dim, tokens)}));
  fn->setAttr("llm.entry", b.getStringAttr(kind));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(fn.addEntryBlock());

  // Gemma4AudioSubSampleConvProjection: two convolutions halve time and frequency, then the input projection of
  // the frequency-major [mel / 4, C1] rows.
  block = "audio: subsampling";
  Value x = b.create<llm::SubsampleConvOp>(at("a_conv0"), act((a.mel + 1) / 2 * a.channels0, framesAfter(1)),
                                           fn.getArgument(0), w(a.conv0), w(a.conv0Norm), b.getI64IntegerAttr(1),
                                           b.getF32FloatAttr(a.normEps));
  x = b.create<llm::SubsampleConvOp>(at("a_conv1"), act(((a.mel + 1) / 2 + 1) / 2 * a.channels1, tokens), x,
                                     w(a.conv1), w(a.conv1Norm), b.getI64IntegerAttr(a.channels0),
                                     b.getF32FloatAttr(a.normEps));
  Value h = linear(x, ClippedLinear{a.inputProjection}, a.dim, "a_residual");
  for (int64_t l = 0; l < a.layers; ++l) {
    const AudioTower::Layer &lw = a.layerWeights[l];
    const std::string prefix = "audio layer " + std::to_string(l) + ": ";
    block = prefix + "feed-forward 1";
    h = feedForward(h, lw.ffn1, layerValue(l) + "ffn1_");
    block = prefix + "attention";
    h = attention(h, l);
    block = prefix + "light conv";
    h = lightConv(h, l);
    block = prefix + "feed-forward 2";
    h = feedForward(h, lw.ffn2, layerValue(l) + "ffn2_");
    block = prefix + "out norm";
    h = norm(clip(h, layerValue(l) + "out_clip"), lw.outNorm, kDefaultEps, "a_residual");
  }
  // output_proj (with its bias), then Gemma4MultimodalEmbedder: an RMSNorm without scale and the projection into
  // the decoder's width.
  block = "audio: embedder";
  Value t = linear(h, ClippedLinear{a.outputProjection}, a.outDim, "a_tower");
  t = b.create<llm::AddBiasOp>(at("a_tower"), t, w(a.outputBias));
  Value soft = linear(norm(t, a.outOnes, a.normEps, "a_soft_norm"), ClippedLinear{a.embedProjection}, d.dim,
                      "a_embedded");
  b.create<func::ReturnOp>(at("a_embedded"), soft);
}
} // namespace

void saguaro::buildAudioEntry(OpBuilder &b, const ModelDesc &desc) {
  AudioBuilder(b, desc).build("encode_audio", "audio");
  AudioBuilder(b, desc).build("encode_audio_step", "audio_step");
}
