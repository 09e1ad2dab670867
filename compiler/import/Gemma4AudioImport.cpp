//===- Gemma4AudioImport.cpp - Gemma 4's audio tower -----------------------------------===//
//
// The `audio_config` of Gemma4ForConditionalGeneration into ModelDesc::audio: the conformer's
// shapes, its tensor names under `model.audio_tower.` and `model.embed_audio.`, the clipped
// linears' bounds, and the token ids that frame a clip's soft tokens in the prompt.
// docs/gemma4-audio.md states each rule and where transformers defines it.
//
//===------------------------------------------------------------------------------------===//
#include "compiler/import/HfImport.h"
#include "dialects/llm/IR/RelativeTable.h"

#include <algorithm>
#include <cmath>

using namespace saguaro;

namespace {
/// The longest clip the feature extractor passes on (`max_length` 480 000 samples, 30 s) has 2 999 valid frames;
/// the entry takes up to 3 000, a whole number of soft tokens (750, Gemma4Processor's `audio_seq_length`).
constexpr int64_t kMaxFrames = 3000;

AudioTower::FeedForward feedForward(const std::string &p, bool clipped) {
  return {p + "pre_layer_norm.weight", p + "post_layer_norm.weight", ClippedLinear::of(p + "ffw_layer_1", clipped),
          ClippedLinear::of(p + "ffw_layer_2", clipped)};
}
} // namespace

llvm::Error saguaro::describeGemma4Audio(const HfConfig &outer, ModelDesc &d) {
  const llvm::json::Object *config = outer.object().getObject("audio_config");
  if (!config)
    return llvm::Error::success(); // no audio tower
  HfConfig c(*config, outer.file() + ": audio_config");
  AudioTower &a = d.audio;
  SAGUARO_TRY(dim, c.integer("hidden_size", 1024));
  SAGUARO_TRY(layers, c.integer("num_hidden_layers", 12));
  SAGUARO_TRY(heads, c.integer("num_attention_heads", 8));
  SAGUARO_TRY(kernel, c.integer("conv_kernel_size", 5));
  SAGUARO_TRY(chunk, c.integer("attention_chunk_size", 12));
  SAGUARO_TRY(left, c.integer("attention_context_left", 13));
  SAGUARO_TRY(right, c.integer("attention_context_right", 0));
  SAGUARO_TRY(outDim, c.integer("output_proj_dims", 1536));
  SAGUARO_TRY(eps, c.number("rms_norm_eps", 1e-6));
  SAGUARO_TRY(residual, c.number("residual_weight", 0.5));
  SAGUARO_TRY(cap, c.number("attention_logit_cap", 50.0));
  SAGUARO_TRY(clip, c.number("gradient_clipping", 1e10));
  int64_t channels0 = 128, channels1 = 32; // Gemma4AudioConfig's subsampling_conv_channels
  if (const llvm::json::Array *channels = config->getArray("subsampling_conv_channels")) {
    if (channels->size() != 2 || !(*channels)[0].getAsInteger() || !(*channels)[1].getAsInteger())
      return c.error("subsampling_conv_channels must be two integers");
    channels0 = *(*channels)[0].getAsInteger(), channels1 = *(*channels)[1].getAsInteger();
  }
  if (auto e = c.checkSizes({{"hidden_size", dim},
                             {"num_hidden_layers", layers, HfConfig::kMaxLayers},
                             {"num_attention_heads", heads},
                             {"conv_kernel_size", kernel},
                             {"attention_chunk_size", chunk},
                             {"attention_context_left", left},
                             {"output_proj_dims", outDim},
                             {"subsampling_conv_channels[0]", channels0},
                             {"subsampling_conv_channels[1]", channels1}}))
    return e;
  if (dim % heads != 0 || dim % 2 != 0)
    return c.error("hidden_size " + llvm::Twine(dim) + " is odd or does not split over " + llvm::Twine(heads) +
                   " heads");
  if (right < 0)
    return c.error("attention_context_right must not be negative");
  // input_proj_linear has (C0 // 4) * C1 inputs: the flattened [mel / 4, C1] rows only when C0 // 4 = ceil(mel / 4).
  constexpr int64_t mel = 128; // Gemma4AudioFeatureExtractor's feature_size
  if (channels0 / 4 != (mel + 3) / 4)
    return c.error("subsampling_conv_channels[0] // 4 = " + llvm::Twine(channels0 / 4) + " is not the " +
                   llvm::Twine((mel + 3) / 4) + " mel columns left after subsampling (input_proj_linear's width)");
  if (std::string act = c.string("hidden_act", "silu"); act != "silu")
    return c.error("hidden_act '" + act + "' is not supported (silu is)");

  a.layers = layers, a.dim = dim, a.heads = heads, a.headDim = dim / heads, a.mel = mel;
  a.channels0 = channels0, a.channels1 = channels1;
  a.chunk = chunk, a.past = left - 1, a.future = right, a.convKernel = kernel, a.outDim = outDim;
  a.maxFrames = kMaxFrames;
  a.normEps = static_cast<float>(eps), a.residualWeight = static_cast<float>(residual);
  a.logitCap = static_cast<float>(cap), a.gradientClip = static_cast<float>(clip);
  const std::string tower = "model.audio_tower.", sub = tower + "subsample_conv_projection.";
  a.conv0 = sub + "layer0.conv.weight", a.conv0Norm = sub + "layer0.norm.weight";
  a.conv1 = sub + "layer1.conv.weight", a.conv1Norm = sub + "layer1.norm.weight";
  a.inputProjection = sub + "input_proj_linear.weight";
  a.outputProjection = tower + "output_proj.weight", a.outputBias = tower + "output_proj.bias";
  a.embedProjection = "model.embed_audio.embedding_projection.weight";
  a.outOnes = "saguaro.norm.ones." + std::to_string(outDim);
  a.clipLow = "saguaro.audio.clip_low", a.clipHigh = "saguaro.audio.clip_high";
  const bool clipped = c.boolean("use_clipped_linears", true);
  for (int64_t i = 0; i < layers; ++i) {
    const std::string p = tower + "layers." + std::to_string(i) + ".";
    AudioTower::Layer l;
    l.ffn1 = feedForward(p + "feed_forward1.", clipped);
    l.ffn2 = feedForward(p + "feed_forward2.", clipped);
    l.attnPreNorm = p + "norm_pre_attn.weight";
    l.attnPostNorm = p + "norm_post_attn.weight";
    l.outNorm = p + "norm_out.weight";
    l.q = ClippedLinear::of(p + "self_attn.q_proj", clipped);
    l.k = ClippedLinear::of(p + "self_attn.k_proj", clipped);
    l.v = ClippedLinear::of(p + "self_attn.v_proj", clipped);
    l.post = ClippedLinear::of(p + "self_attn.post", clipped);
    l.perDimScale = p + "self_attn.per_dim_scale";
    l.relativeKeys = p + "self_attn.relative_k_proj.weight";
    l.relativeTable = "saguaro.audio.relative_table." + std::to_string(a.layerWeights.size());
    l.convPreNorm = p + "lconv1d.pre_layer_norm.weight";
    l.convNorm = p + "lconv1d.conv_norm.weight";
    l.depthwise = p + "lconv1d.depthwise_conv1d.weight";
    l.convStart = ClippedLinear::of(p + "lconv1d.linear_start", clipped);
    l.convEnd = ClippedLinear::of(p + "lconv1d.linear_end", clipped);
    a.layerWeights.push_back(l);
  }
  // Gemma4Config's defaults; the end id's field is spelled `eoa_token_index`.
  a.audioTokenId = outer.object().getInteger("audio_token_id").value_or(258881);
  a.beginId = outer.object().getInteger("boa_token_id").value_or(256000);
  a.endId = outer.object().getInteger("eoa_token_index").value_or(258883);
  return llvm::Error::success();
}

void saguaro::addAudioRelativeTables(ImportedModel &model) {
  const AudioTower &a = model.desc.audio;
  const int64_t h = a.dim, half = a.dim / 2, end = llm::relativeTableEnd(a.chunk, a.past, a.future);
  // sinusoid(p) = [sin(p·τ_i), cos(p·τ_i)], τ_i = 10⁴^(−i / max(h/2 − 1, 1)): Gemma4AudioRelPositionalEncoding.
  const double step = std::log(1.0e4) / static_cast<double>(std::max<int64_t>(half - 1, 1));
  std::vector<double> sinusoid(static_cast<size_t>(h));
  for (const AudioTower::Layer &l : a.layerWeights) {
    const float *relk = model.weights.find(l.relativeKeys)->data; // [h, h], torch's [out, in]; checkWeights ran
    std::vector<float> table(static_cast<size_t>((end + 1) * h));
    for (int64_t p = 0; p <= end; ++p) {
      for (int64_t i = 0; i < half; ++i) {
        const double angle = static_cast<double>(p) * std::exp(-static_cast<double>(i) * step);
        sinusoid[i] = std::sin(angle), sinusoid[half + i] = std::cos(angle);
      }
      for (int64_t o = 0; o < h; ++o) {
        double acc = 0; // in float64, rounded once: the reference's precision
        for (int64_t i = 0; i < h; ++i)
          acc += static_cast<double>(relk[o * h + i]) * sinusoid[i];
        table[p * h + o] = static_cast<float>(acc);
      }
    }
    model.weights.addOwned(l.relativeTable, {end + 1, h}, std::move(table));
  }
}
