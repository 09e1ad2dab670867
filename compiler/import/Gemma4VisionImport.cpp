//===- Gemma4VisionImport.cpp - Gemma 4's vision tower ---------------------------------===//
//
// The `vision_config` of Gemma4ForConditionalGeneration into ModelDesc::vision: the tower's shapes,
// its tensor names under `model.vision_tower.` and `model.embed_vision.`, clipped linears, the
// optional standardize, and the token ids that frame an image's soft tokens in the prompt.
// docs/gemma4-vision.md states each rule and where transformers defines it.
//
//===------------------------------------------------------------------------------------===//
#include "compiler/import/HfImport.h"

#include "llvm/Support/Path.h"

using namespace saguaro;

namespace {
/// The soft-token budget an image gets: the processor's `max_soft_tokens` (processor_config.json or
/// preprocessor_config.json in the model's directory), else the config's `vision_soft_tokens_per_image`, else
/// Gemma4ImageProcessor's default, 280.
int64_t softTokenBudget(const HfConfig &outer, llvm::StringRef dir) {
  for (const char *file : {"processor_config.json", "preprocessor_config.json"}) {
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, file);
    llvm::Expected<llvm::json::Value> json = readJsonFile(path);
    if (!json) {
      llvm::consumeError(json.takeError());
      continue;
    }
    const llvm::json::Object *o = json->getAsObject();
    if (const llvm::json::Object *nested = o ? o->getObject("image_processor") : nullptr)
      o = nested; // processor_config.json nests the image processor's fields
    if (std::optional<int64_t> budget = o ? o->getInteger("max_soft_tokens") : std::nullopt)
      return *budget;
  }
  return outer.object().getInteger("vision_soft_tokens_per_image").value_or(280);
}

} // namespace

llvm::Error saguaro::describeGemma4Vision(const HfConfig &outer, llvm::StringRef dir, ModelDesc &d) {
  const llvm::json::Object *config = outer.object().getObject("vision_config");
  if (!config)
    return llvm::Error::success(); // no vision tower
  HfConfig c(*config, outer.file() + ": vision_config");
  VisionTower &v = d.vision;
  SAGUARO_TRY(dim, c.integer("hidden_size", 768));
  SAGUARO_TRY(hidden, c.integer("intermediate_size", 3072));
  SAGUARO_TRY(layers, c.integer("num_hidden_layers", 16));
  SAGUARO_TRY(heads, c.integer("num_attention_heads", 12));
  SAGUARO_TRY(kvHeads, c.integer("num_key_value_heads", 12));
  SAGUARO_TRY(headDim, c.integer("head_dim", 64));
  SAGUARO_TRY(patch, c.integer("patch_size", 16));
  SAGUARO_TRY(pooling, c.integer("pooling_kernel_size", 3));
  SAGUARO_TRY(positions, c.integer("position_embedding_size", 10240));
  SAGUARO_TRY(eps, c.number("rms_norm_eps", 1e-6));
  if (auto e = c.checkSizes({{"hidden_size", dim},
                                  {"intermediate_size", hidden},
                                  {"num_hidden_layers", layers, HfConfig::kMaxLayers},
                                  {"num_attention_heads", heads},
                                  {"num_key_value_heads", kvHeads},
                                  {"head_dim", headDim},
                                  {"patch_size", patch},
                                  {"pooling_kernel_size", pooling},
                                  {"position_embedding_size", positions}}))
    return e;
  if (headDim % 4 != 0 || heads % kvHeads != 0)
    return c.error("head_dim " + llvm::Twine(headDim) + " is not a multiple of 4 (2-D RoPE) or " +
                   llvm::Twine(heads) + " heads do not split over " + llvm::Twine(kvHeads) + " KV heads");
  if (std::string act = c.string("hidden_activation", "gelu_pytorch_tanh"); act != "gelu_pytorch_tanh")
    return c.error("hidden_activation '" + act + "' is not supported (gelu_pytorch_tanh is)");
  if (c.boolean("attention_bias", false))
    return c.error("attention_bias is not supported");
  float theta = 100.0f; // Gemma4VisionConfig's default rope_parameters
  if (const llvm::json::Object *rope = config->getObject("rope_parameters")) {
    if (std::optional<llvm::StringRef> type = rope->getString("rope_type"); type && *type != "default")
      return c.error("rope_parameters.rope_type '" + *type + "' is not supported (default is)");
    theta = static_cast<float>(rope->getNumber("rope_theta").value_or(100.0));
  }
  int64_t budget = softTokenBudget(outer, dir);
  if (budget <= 0)
    return c.error("max_soft_tokens must be positive, got " + llvm::Twine(budget));

  v.layers = layers, v.dim = dim, v.hidden = hidden, v.heads = heads, v.kvHeads = kvHeads, v.headDim = headDim;
  v.patchSize = patch, v.pooling = pooling, v.positionRows = positions, v.maxSoftTokens = budget;
  v.normEps = static_cast<float>(eps), v.ropeTheta = theta;
  const std::string tower = "model.vision_tower.";
  v.patchProjection = tower + "patch_embedder.input_proj.weight";
  v.positionTable = tower + "patch_embedder.position_embedding_table";
  v.embedProjection = "model.embed_vision.embedding_projection.weight";
  if (c.boolean("standardize", false))
    v.stdBias = tower + "std_bias", v.stdScale = tower + "std_scale";
  v.headOnes = "saguaro.v_norm.ones." + std::to_string(headDim);
  v.dimOnes = "saguaro.norm.ones." + std::to_string(dim);
  const bool clipped = c.boolean("use_clipped_linears", false);
  for (int64_t i = 0; i < layers; ++i) {
    const std::string p = tower + "encoder.layers." + std::to_string(i) + ".";
    VisionTower::Layer l;
    l.attnNorm = p + "input_layernorm.weight";
    l.postAttnNorm = p + "post_attention_layernorm.weight";
    l.ffnNorm = p + "pre_feedforward_layernorm.weight";
    l.postFfnNorm = p + "post_feedforward_layernorm.weight";
    l.qNorm = p + "self_attn.q_norm.weight";
    l.kNorm = p + "self_attn.k_norm.weight";
    l.q = ClippedLinear::of(p + "self_attn.q_proj", clipped);
    l.k = ClippedLinear::of(p + "self_attn.k_proj", clipped);
    l.v = ClippedLinear::of(p + "self_attn.v_proj", clipped);
    l.o = ClippedLinear::of(p + "self_attn.o_proj", clipped);
    l.gate = ClippedLinear::of(p + "mlp.gate_proj", clipped);
    l.up = ClippedLinear::of(p + "mlp.up_proj", clipped);
    l.down = ClippedLinear::of(p + "mlp.down_proj", clipped);
    v.layerWeights.push_back(l);
  }
  // Gemma4Config's defaults.
  v.imageTokenId = outer.object().getInteger("image_token_id").value_or(258880);
  v.beginId = outer.object().getInteger("boi_token_id").value_or(255999);
  v.endId = outer.object().getInteger("eoi_token_id").value_or(258882);
  return llvm::Error::success();
}
