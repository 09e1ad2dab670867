//===- HfImport.cpp - Hugging Face decoder checkpoints ---------------------------------===//
//
// A model directory holds config.json and model.safetensors (or a sharded set listed in
// model.safetensors.index.json). Supported architectures: LlamaForCausalLM,
// Qwen3ForCausalLM and Gemma3ForCausalLM (text) here; Gemma4ForCausalLM and
// Gemma4ForConditionalGeneration in Gemma4Import.cpp. Field names and defaults follow the
// transformers configuration classes of those models.
//
//===------------------------------------------------------------------------------------===//
#include "compiler/import/HfImport.h"
#include "compiler/import/Safetensors.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <cmath>

using namespace saguaro;

llvm::Error saguaro::readHfWeights(llvm::StringRef dir, ImportedModel &model) {
  llvm::SmallString<256> single(dir), index(dir);
  llvm::sys::path::append(single, "model.safetensors");
  llvm::sys::path::append(index, "model.safetensors.index.json");
  if (llvm::sys::fs::exists(single)) {
    model.sourceFiles.push_back(single.str().str());
    return readSafetensors(single, model.weights);
  }
  auto text = llvm::MemoryBuffer::getFile(index);
  if (!text)
    return fileError(dir, "no model.safetensors or model.safetensors.index.json");
  auto json = llvm::json::parse((*text)->getBuffer());
  if (!json)
    return fileError(index, "not valid JSON: " + llvm::toString(json.takeError()));
  const llvm::json::Object *map = json->getAsObject() ? json->getAsObject()->getObject("weight_map") : nullptr;
  if (!map)
    return fileError(index, "missing field 'weight_map'");
  std::vector<std::string> shards;
  llvm::StringSet<> seen;
  for (const auto &entry : *map) {
    std::optional<llvm::StringRef> shard = entry.second.getAsString();
    if (!shard || shard->contains('/'))
      return fileError(index, "weight_map entry '" + entry.first.str() + "' is not a file name");
    if (seen.insert(*shard).second)
      shards.push_back(shard->str());
  }
  std::sort(shards.begin(), shards.end());
  model.sourceFiles.push_back(index.str().str());
  for (const std::string &shard : shards) {
    llvm::SmallString<256> p(dir);
    llvm::sys::path::append(p, shard);
    model.sourceFiles.push_back(p.str().str());
    if (auto e = readSafetensors(p, model.weights))
      return e;
  }
  return llvm::Error::success();
}

namespace {
using Config = HfConfig;

/// RoPE scaling from a rope_scaling object: a linear position divisor, or Llama 3's frequency scaling.
struct RopeScaling {
  float linear = 1.0f;
  std::vector<float> llama3; // {factor, low_freq_factor, high_freq_factor, original_max_position_embeddings}
};

llvm::Expected<RopeScaling> ropeScaling(const Config &c) {
  RopeScaling r;
  const llvm::json::Object *s = c.object().getObject("rope_scaling");
  if (!s)
    return r;
  std::string type = s->getString("rope_type").value_or(s->getString("type").value_or("")).str();
  if (type == "default")
    return r;
  if (type != "linear" && type != "llama3")
    return c.error("rope_scaling type '" + type + "' is not supported (default, linear and llama3 are)");
  std::optional<double> factor = s->getNumber("factor");
  if (!factor || *factor <= 0)
    return c.error("rope_scaling needs a positive 'factor'");
  if (type == "linear") {
    r.linear = static_cast<float>(*factor);
    return r;
  }
  std::optional<double> low = s->getNumber("low_freq_factor"), high = s->getNumber("high_freq_factor"),
                        context = s->getNumber("original_max_position_embeddings");
  if (!low || !high || !context)
    return c.error("rope_scaling llama3 needs low_freq_factor, high_freq_factor and "
                   "original_max_position_embeddings");
  if (!(*low > 0) || !(*high > *low) || !(*context > 0))
    return c.error("rope_scaling llama3 needs 0 < low_freq_factor < high_freq_factor and a positive "
                   "original_max_position_embeddings");
  r.llama3 = {static_cast<float>(*factor), static_cast<float>(*low), static_cast<float>(*high),
              static_cast<float>(*context)};
  return r;
}
} // namespace

llvm::Error saguaro::importHuggingFace(llvm::StringRef dir, ImportedModel &model) {
  llvm::SmallString<256> configPath(dir);
  llvm::sys::path::append(configPath, "config.json");
  std::string cfgFile = configPath.str().str();
  auto json = readJsonFile(cfgFile);
  if (!json)
    return json.takeError();
  if (!json->getAsObject())
    return fileError(cfgFile, "not a JSON object");
  Config c(*json->getAsObject(), cfgFile);

  const llvm::json::Array *archs = c.object().getArray("architectures");
  if (!archs || archs->empty() || !(*archs)[0].getAsString())
    return c.error("missing field 'architectures'");
  llvm::StringRef arch = *(*archs)[0].getAsString();
  ModelDesc &d = model.desc;
  if (arch == "LlamaForCausalLM")
    d.architecture = "llama";
  else if (arch == "Qwen3ForCausalLM")
    d.architecture = "qwen3";
  else if (arch == "Gemma3ForCausalLM")
    d.architecture = "gemma3";
  else if (arch == "Gemma4ForCausalLM" || arch == "Gemma4ForConditionalGeneration")
    return importGemma4(c, arch, dir, model);
  else
    return c.error("unknown architecture '" + arch +
                   "' (supported: LlamaForCausalLM, Qwen3ForCausalLM, Gemma3ForCausalLM, Gemma4ForCausalLM, "
                   "Gemma4ForConditionalGeneration)");
  bool gemma = d.architecture == "gemma3", qwen = d.architecture == "qwen3";

  SAGUARO_TRY(sizes, c.statedSizes());
  const int64_t dim = sizes.dim, hidden = sizes.hidden, layers = sizes.layers, heads = sizes.heads,
                vocab = sizes.vocab;
  SAGUARO_TRY(eps, c.number("rms_norm_eps"));
  SAGUARO_TRY(kvHeads, c.integer("num_key_value_heads", heads));
  SAGUARO_TRY(headDim, c.integer("head_dim", gemma ? 256 : qwen ? 128 : (heads ? dim / heads : 0)));
  SAGUARO_TRY(theta, c.number("rope_theta", gemma ? 1000000.0 : 10000.0));
  SAGUARO_TRY(maxPos, c.integer("max_position_embeddings", 2048));
  SAGUARO_TRY(scaling, ropeScaling(c));
  SAGUARO_TRY(finalSoftcap, c.optionalNumber("final_logit_softcapping"));
  SAGUARO_TRY(attnSoftcap, c.optionalNumber("attn_logit_softcapping"));
  if (auto e = c.checkSizes(HfConfig::DecoderSizes{dim, hidden, layers, heads, kvHeads, headDim, vocab, maxPos}))
    return e;
  if (heads % kvHeads != 0)
    return c.error("num_attention_heads must be a multiple of num_key_value_heads");
  if (headDim % 2 != 0)
    return c.error("head_dim must be even for RoPE");
  if (c.boolean("attention_bias", false) || c.boolean("mlp_bias", false))
    return c.error("attention_bias / mlp_bias are not supported");

  std::string act = c.string(gemma ? "hidden_activation" : "hidden_act", gemma ? "gelu_pytorch_tanh" : "silu");
  if (act == "silu")
    d.activation = "silu";
  else if (act == "gelu_pytorch_tanh" || act == "gelu_tanh")
    d.activation = "gelu_tanh";
  else
    return c.error("unsupported activation '" + act + "' (silu and gelu_pytorch_tanh are)");

  d.name = llvm::sys::path::filename(llvm::sys::path::remove_leading_dotslash(dir)).str();
  if (d.name.empty() || d.name == ".")
    d.name = d.architecture;
  d.dim = dim;
  d.hidden = hidden;
  d.layers = layers;
  d.heads = heads;
  d.kvHeads = kvHeads;
  d.headDim = headDim;
  d.vocab = vocab;
  d.maxSeq = maxPos;
  d.normEps = static_cast<float>(eps);
  d.normAddOne = gemma;
  d.embedScale = gemma ? static_cast<float>(std::sqrt(static_cast<double>(dim))) : 1.0f;
  d.ropeStyle = 1;
  d.attnScale = 1.0f / std::sqrt(static_cast<float>(headDim));
  if (gemma) {
    SAGUARO_TRY(qpas, c.number("query_pre_attn_scalar"));
    if (qpas <= 0)
      return c.error("field 'query_pre_attn_scalar' must be positive");
    d.attnScale = static_cast<float>(1.0 / std::sqrt(qpas));
  }
  d.attnSoftcap = static_cast<float>(attnSoftcap);
  d.finalSoftcap = static_cast<float>(finalSoftcap);
  d.bosId = c.object().getInteger("bos_token_id").value_or(-1);
  if (const llvm::json::Array *eosList = c.object().getArray("eos_token_id"))
    d.eosId = eosList->empty() ? -1 : (*eosList)[0].getAsInteger().value_or(-1);
  else
    d.eosId = c.object().getInteger("eos_token_id").value_or(-1);

  // Per-layer attention: Gemma 3 alternates sliding (local RoPE base) and global layers.
  std::vector<bool> sliding(layers, false);
  int64_t window = 0;
  if (gemma) {
    SAGUARO_TRY(sw, c.integer("sliding_window"));
    SAGUARO_TRY(pattern, c.integer("sliding_window_pattern", 6));
    if (sw <= 0 || pattern <= 0)
      return c.error("fields 'sliding_window' and 'sliding_window_pattern' must be positive");
    window = sw;
    if (const llvm::json::Array *types = c.object().getArray("layer_types")) {
      if (static_cast<int64_t>(types->size()) != layers)
        return c.error("field 'layer_types' must list num_hidden_layers entries");
      for (int64_t i = 0; i < layers; ++i)
        sliding[i] = (*types)[i].getAsString().value_or("") == "sliding_attention";
    } else {
      for (int64_t i = 0; i < layers; ++i)
        sliding[i] = (i + 1) % pattern != 0;
    }
  }
  SAGUARO_TRY(localTheta, c.number("rope_local_base_freq", 10000.0));
  for (int64_t i = 0; i < layers; ++i) {
    LayerAttention a;
    a.window = sliding[i] ? window : 0;
    a.ropeTheta = static_cast<float>(sliding[i] ? localTheta : theta);
    if (!sliding[i]) { // Gemma 3 scales only its global layers
      a.ropePosScale = scaling.linear;
      a.ropeLlama3 = scaling.llama3;
    }
    d.layerAttention.push_back(a);
  }

  bool tied = c.boolean("tie_word_embeddings", gemma);
  d.tokEmbedding = "model.embed_tokens.weight";
  d.finalNorm = "model.norm.weight";
  d.lmHead = tied ? d.tokEmbedding : "lm_head.weight";
  for (int64_t i = 0; i < layers; ++i) {
    std::string p = "model.layers." + std::to_string(i) + ".";
    LayerWeights w = namedLayerWeights(p, kHfLayerNaming);
    if (gemma || qwen) {
      w.qNorm = p + "self_attn.q_norm.weight";
      w.kNorm = p + "self_attn.k_norm.weight";
    }
    if (gemma) {
      w.postAttnNorm = p + "post_attention_layernorm.weight";
      w.ffnNorm = p + "pre_feedforward_layernorm.weight";
      w.postFfnNorm = p + "post_feedforward_layernorm.weight";
    } else {
      w.ffnNorm = p + "post_attention_layernorm.weight";
    }
    d.layerWeights.push_back(w);
  }
  model.sourceFiles.push_back(cfgFile);
  if (auto e = readHfWeights(dir, model))
    return e;
  return checkWeights(model, dir);
}
