//===- Gemma4Import.cpp - Gemma 4 text decoders ----------------------------------------===//
//
// Gemma4ForCausalLM (model_type gemma4_text: the config itself, tensors under `model.`) and the
// language model of Gemma4ForConditionalGeneration (gemma4: the nested `text_config`, tensors
// under `model.language_model.`, with its vision tower (Gemma4VisionImport.cpp); the audio tower is
// left out). docs/gemma4.md lists
// every rule with the place in transformers that defines it; test/reference/gemma4_reference.py
// implements the same rules in numpy. Everything the config says is read here into ModelDesc, and
// everything this compiler does not implement is refused in one line naming config.json.
//
//===------------------------------------------------------------------------------------===//
#include "compiler/import/HfImport.h"

#include "codegen/kernels/include/saguaro/kernels/cq_format.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>

using namespace saguaro;

namespace {
constexpr llvm::StringLiteral kSliding = "sliding_attention", kFull = "full_attention";

/// `value` as float32, rounded to the stored dtype of the table it scales ("BF16", "F16"; else float32), as
/// Gemma4TextScaledWordEmbedding casts its scale to the weight's dtype.
float roundToStored(double value, llvm::StringRef dtype) {
  float f = static_cast<float>(value);
  if (dtype == "F16")
    return kernels::cq::half_to_float(kernels::cq::float_to_half(f));
  if (dtype != "BF16")
    return f;
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits += 0x7fffu + ((bits >> 16) & 1u); // round to nearest even (the scales are finite)
  bits &= 0xffff0000u;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// One layer type's RoPE, from its `rope_parameters` entry.
struct Rope {
  float theta = 10000.0f, posScale = 1.0f;
  int64_t pairs = 0; // 0: every pair rotates
};

/// The layer types' RoPE: `default` over the layer's head dim, or `proportional`, where only the first
/// int(partial_rotary_factor · d // 2) pairs rotate (with θ^(-2j/d) over the whole d) and all frequencies are
/// divided by `factor` (a position divisor here). transformers sizes the tables from `head_dim`, or from
/// `global_head_dim` for proportional RoPE on full layers; a layer whose head dim differs is refused.
llvm::Expected<Rope> ropeFor(const HfConfig &c, llvm::StringRef type, int64_t headDim, int64_t configHeadDim,
                             int64_t configGlobalHeadDim, int64_t fallbackDim) {
  const llvm::json::Object *all = c.object().getObject("rope_parameters");
  const llvm::json::Object *p = nullptr;
  // Gemma4TextConfig's rope_parameters when config.json has none.
  llvm::json::Object defaults{{"rope_type", type == kSliding ? "default" : "proportional"},
                              {"rope_theta", type == kSliding ? 10000.0 : 1000000.0}};
  if (type == kFull)
    defaults["partial_rotary_factor"] = 0.25;
  if (!c.present("rope_parameters"))
    p = &defaults;
  else if (!all || !(p = all->getObject(type)))
    return c.error("rope_parameters has no entry for " + type);
  std::string ropeType = p->getString("rope_type").value_or("default").str();
  if (ropeType != "default" && ropeType != "proportional")
    return c.error("rope_type '" + ropeType + "' (" + type + ") is not supported (default and proportional are)");
  std::optional<double> theta = p->getNumber("rope_theta");
  if (!theta || *theta <= 0)
    return c.error("rope_parameters." + type + " needs a positive 'rope_theta'");
  bool proportional = ropeType == "proportional";
  int64_t tableDim = proportional && type == kFull ? configGlobalHeadDim : configHeadDim;
  if (tableDim <= 0)
    tableDim = fallbackDim;
  if (tableDim != headDim)
    return c.error(ropeType + " RoPE of " + type + " layers is sized for " +
                   (proportional && type == kFull ? "global_head_dim " : "head_dim ") + llvm::Twine(tableDim) +
                   " but their head dim is " + llvm::Twine(headDim));
  Rope r;
  r.theta = static_cast<float>(*theta);
  if (!proportional)
    return r;
  double fraction = p->getNumber("partial_rotary_factor").value_or(1.0);
  double factor = p->getNumber("factor").value_or(1.0);
  if (!(fraction > 0 && fraction <= 1) || !(factor > 0))
    return c.error("rope_parameters." + type + ": partial_rotary_factor must be in (0, 1] and factor positive");
  r.pairs = static_cast<int64_t>(std::floor(fraction * static_cast<double>(headDim) / 2));
  r.posScale = static_cast<float>(factor);
  return r;
}

/// The text config's refusals: what transformers' Gemma 4 does that this compiler does not.
llvm::Error refuseUnsupported(const HfConfig &c) {
  if (c.boolean("enable_moe_block", false))
    return c.error("enable_moe_block (the mixture-of-experts layers of Gemma 4 26B-A4B) is not supported");
  if (c.string("use_bidirectional_attention", "") == "all")
    return c.error("use_bidirectional_attention 'all' is not supported (text attention is causal)");
  if (c.boolean("attention_bias", false))
    return c.error("attention_bias is not supported");
  std::string act = c.string("hidden_activation", "gelu_pytorch_tanh");
  if (act != "gelu_pytorch_tanh")
    return c.error("hidden_activation '" + act + "' is not supported (gelu_pytorch_tanh is)");
  return llvm::Error::success();
}

/// `layer_types`, or the default five sliding layers to one full; the last layer is made full, as
/// Gemma4TextConfig.__post_init__ makes it (`note` then says so).
llvm::Expected<std::vector<bool>> slidingLayers(const HfConfig &c, int64_t layers, std::string &note) {
  std::vector<bool> sliding(layers);
  if (const llvm::json::Array *types = c.object().getArray("layer_types")) {
    if (static_cast<int64_t>(types->size()) != layers)
      return c.error("layer_types must name num_hidden_layers = " + llvm::Twine(layers) + " layers");
    for (int64_t i = 0; i < layers; ++i) {
      llvm::StringRef t = (*types)[i].getAsString().value_or("");
      if (t != kSliding && t != kFull)
        return c.error("layer_types[" + llvm::Twine(i) + "] must be sliding_attention or full_attention");
      sliding[i] = t == kSliding;
    }
  } else if (c.present("layer_types")) {
    return c.error("layer_types must be a list");
  } else {
    for (int64_t i = 0; i < layers; ++i)
      sliding[i] = (i + 1) % 6 != 0;
  }
  if (sliding.back()) {
    sliding.back() = false;
    note = "the last layer is sliding_attention in layer_types; compiled as full_attention, as transformers does";
  }
  return sliding;
}

/// The tensor prefix of the text decoder in each layout.
std::string prefixOf(llvm::StringRef architecture) {
  return architecture == "Gemma4ForConditionalGeneration" ? "model.language_model." : "model.";
}
} // namespace

llvm::Error saguaro::describeGemma4(const HfConfig &outer, llvm::StringRef architecture, llvm::StringRef dir,
                                    ModelDesc &d, std::vector<std::string> &notes) {
  const bool conditional = architecture == "Gemma4ForConditionalGeneration";
  const llvm::json::Object *text = conditional ? outer.object().getObject("text_config") : &outer.object();
  if (!text)
    return outer.error(architecture + " needs the object 'text_config'");
  HfConfig c(*text, conditional ? outer.file() + ": text_config" : outer.file());
  const std::string prefix = prefixOf(architecture);

  if (auto e = refuseUnsupported(c))
    return e;
  SAGUARO_TRY(sizes, c.statedSizes());
  const int64_t dim = sizes.dim, hidden = sizes.hidden, layers = sizes.layers, heads = sizes.heads,
                vocab = sizes.vocab;
  SAGUARO_TRY(kvHeads, c.integer("num_key_value_heads"));
  // Gemma4TextConfig's defaults apply to absent fields; an explicit null stays None (0 here).
  auto integerOrNull = [&](llvm::StringRef key, int64_t absent) -> llvm::Expected<int64_t> {
    if (!text->get(key))
      return absent;
    return c.present(key) ? c.integer(key) : 0;
  };
  SAGUARO_TRY(headDim, integerOrNull("head_dim", 256));
  SAGUARO_TRY(globalHeadDim, integerOrNull("global_head_dim", 512));
  SAGUARO_TRY(globalKvHeads, integerOrNull("num_global_key_value_heads", 0));
  SAGUARO_TRY(window, integerOrNull("sliding_window", 512));
  SAGUARO_TRY(shared, integerOrNull("num_kv_shared_layers", 0));
  SAGUARO_TRY(pleDim, integerOrNull("hidden_size_per_layer_input", 256));
  SAGUARO_TRY(pleVocab, integerOrNull("vocab_size_per_layer_input", 262144));
  SAGUARO_TRY(maxPos, c.integer("max_position_embeddings", 131072));
  SAGUARO_TRY(eps, c.number("rms_norm_eps", 1e-6));
  SAGUARO_TRY(finalSoftcap, c.optionalNumber("final_logit_softcapping"));
  if (auto e = c.checkSizes(HfConfig::DecoderSizes{dim, hidden, layers, heads, kvHeads, headDim, vocab, maxPos}))
    return e;
  if (globalHeadDim < 0 || globalKvHeads < 0 || pleDim < 0)
    return c.error("global_head_dim, num_global_key_value_heads and hidden_size_per_layer_input must not be "
                   "negative");
  if (shared < 0 || shared >= layers)
    return c.error("num_kv_shared_layers " + llvm::Twine(shared) + " must be at least 0 and below the " +
                   llvm::Twine(layers) + " layers");
  if (pleDim > 0 && pleVocab < vocab)
    return c.error("vocab_size_per_layer_input " + llvm::Twine(pleVocab) + " is below vocab_size " +
                   llvm::Twine(vocab));
  std::string note;
  SAGUARO_TRY(sliding, slidingLayers(c, layers, note));
  if (!note.empty())
    notes.push_back(note);
  if (llvm::is_contained(sliding, true) && window <= 0)
    return c.error("sliding_window must be positive with sliding_attention layers");
  bool kEqV = c.boolean("attention_k_eq_v", false), doubleWide = c.boolean("use_double_wide_mlp", false);

  // The text decoder and its per-layer shapes.
  d.architecture = "gemma4";
  d.name = llvm::sys::path::filename(llvm::sys::path::remove_leading_dotslash(dir)).str();
  if (d.name.empty() || d.name == ".")
    d.name = d.architecture;
  d.dim = dim, d.hidden = hidden, d.layers = layers, d.heads = heads, d.kvHeads = kvHeads;
  d.headDim = headDim, d.vocab = vocab, d.maxSeq = maxPos;
  d.normEps = static_cast<float>(eps);
  d.normAddOne = false; // Gemma4RMSNorm multiplies by w, not by Gemma 3's 1 + w
  d.ropeStyle = 1;
  d.attnScale = 1.0f; // Gemma4TextAttention: scaling 1.0 (q_norm and k_norm set the scale)
  d.finalSoftcap = static_cast<float>(finalSoftcap);
  d.activation = "gelu_tanh";
  const int64_t firstShared = layers - shared;
  for (int64_t i = 0; i < layers; ++i) {
    const bool full = !sliding[i];
    const llvm::StringRef type = full ? kFull : kSliding;
    LayerAttention a;
    a.window = full ? 0 : window;
    a.headDim = full && globalHeadDim > 0 ? globalHeadDim : headDim;
    const bool layerKEqV = kEqV && full;
    a.kvHeads = layerKEqV && globalKvHeads > 0 ? globalKvHeads : kvHeads;
    if (a.headDim % 2 != 0 || heads % a.kvHeads != 0)
      return c.error("layer " + llvm::Twine(i) + ": head dim " + llvm::Twine(a.headDim) + " is odd or " +
                     llvm::Twine(heads) + " heads do not split over " + llvm::Twine(a.kvHeads) + " KV heads");
    SAGUARO_TRY(rope, ropeFor(c, type, a.headDim, headDim, globalHeadDim, dim / heads));
    a.ropeTheta = rope.theta, a.ropePosScale = rope.posScale, a.ropePairs = rope.pairs;
    // A KV-shared layer reads the last layer of its own type before the first shared one.
    if (i >= firstShared) {
      for (int64_t j = firstShared - 1; j >= 0 && a.kvLayer < 0; --j)
        if (sliding[j] == sliding[i])
          a.kvLayer = j;
      if (a.kvLayer < 0)
        return c.error("KV-shared layer " + llvm::Twine(i) + " (" + type + ") has no earlier " + type +
                       " layer to read K/V from (num_kv_shared_layers " + llvm::Twine(shared) + ")");
    }
    d.layerAttention.push_back(a);
    d.layerHidden.push_back(doubleWide && i >= firstShared ? 2 * hidden : hidden);
  }

  // Tensor names. Tied by default; in the gemma4 layout the outer flag wins, and the two may not disagree.
  std::optional<bool> tieInner = text->getBoolean("tie_word_embeddings"), tieOuter;
  if (conditional)
    tieOuter = outer.object().getBoolean("tie_word_embeddings");
  if (tieInner && tieOuter && *tieInner != *tieOuter)
    return outer.error("tie_word_embeddings differs between the config and its text_config");
  bool tied = tieOuter.value_or(tieInner.value_or(true));
  d.tokEmbedding = prefix + "embed_tokens.weight";
  d.finalNorm = prefix + "norm.weight";
  d.lmHead = tied ? d.tokEmbedding : "lm_head.weight";
  if (pleDim > 0) {
    d.ple.dim = pleDim;
    d.ple.tableRows = pleVocab;
    d.ple.table = prefix + "embed_tokens_per_layer.weight";
    d.ple.projection = prefix + "per_layer_model_projection.weight";
    d.ple.projectionNorm = prefix + "per_layer_projection_norm.weight";
    d.ple.projectionScale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(dim)));
    d.ple.sumScale = static_cast<float>(1.0 / std::sqrt(2.0));
  }
  for (int64_t i = 0; i < layers; ++i) {
    const std::string p = prefix + "layers." + std::to_string(i) + ".";
    const LayerAttention &a = d.layerAttention[i];
    LayerWeights w = namedLayerWeights(p, kHfLayerNaming);
    w.postAttnNorm = p + "post_attention_layernorm.weight";
    w.ffnNorm = p + "pre_feedforward_layernorm.weight";
    w.postFfnNorm = p + "post_feedforward_layernorm.weight";
    w.qNorm = p + "self_attn.q_norm.weight";
    if (a.kvLayer >= 0) {
      w.wk.clear(); // a shared layer reads layer kvLayer's cache; its own K/V projections, if stored, are unused
      w.wv.clear();
    } else {
      w.kNorm = p + "self_attn.k_norm.weight";
      // attention_k_eq_v: V is the raw key projection (the same product computed twice, then v_norm).
      if (kEqV && !sliding[i])
        w.wv = w.wk;
      // v_norm has no weight (with_scale=False): a weight of ones, by which the norm multiplies exactly.
      w.vNorm = "saguaro.v_norm.ones." + std::to_string(a.headDim);
    }
    if (pleDim > 0) {
      w.pleGate = p + "per_layer_input_gate.weight";
      w.pleProjection = p + "per_layer_projection.weight";
      w.plePostNorm = p + "post_per_layer_input_norm.weight";
    }
    d.layerWeights.push_back(w);
  }
  if (conditional) {
    if (auto e = describeGemma4Vision(outer, dir, d))
      return e;
    d.vision.padId = text->getInteger("pad_token_id").value_or(0); // Gemma4TextConfig's default
  }
  d.bosId = text->getInteger("bos_token_id").value_or(outer.object().getInteger("bos_token_id").value_or(-1));
  const llvm::json::Value *eos = text->get("eos_token_id") ? text->get("eos_token_id")
                                                           : outer.object().get("eos_token_id");
  if (const llvm::json::Array *list = eos ? eos->getAsArray() : nullptr)
    d.eosId = list->empty() ? -1 : (*list)[0].getAsInteger().value_or(-1);
  else
    d.eosId = eos ? eos->getAsInteger().value_or(-1) : -1;
  return llvm::Error::success();
}

llvm::Error saguaro::importGemma4(const HfConfig &outer, llvm::StringRef architecture, llvm::StringRef dir,
                                  ImportedModel &model) {
  ModelDesc &d = model.desc;
  std::vector<std::string> notes; // printed once the import has succeeded
  if (auto e = describeGemma4(outer, architecture, dir, d, notes))
    return e;
  const std::string prefix = prefixOf(architecture);
  const int64_t layers = d.layers, pleDim = d.ple.dim;

  // The weights; the scales that depend on their stored dtype.
  model.sourceFiles.push_back(outer.file());
  if (auto e = readHfWeights(dir, model))
    return e;
  // The audio tower when the files hold it: a checkpoint may carry an audio_config with only some of its tensors.
  if (architecture == "Gemma4ForConditionalGeneration" &&
      model.weights.contains("model.audio_tower.subsample_conv_projection.layer0.conv.weight"))
    if (auto e = describeGemma4Audio(outer, d))
      return e;
  d.audio.padId = d.vision.padId; // the text config's, read with the vision tower's
  for (int64_t i = 0; i < layers; ++i)
    if (const std::string &ones = d.layerWeights[i].vNorm; !ones.empty() && !model.weights.contains(ones))
      model.weights.addOwned(ones, {d.headDimOf(i)}, std::vector<float>(static_cast<size_t>(d.headDimOf(i)), 1.0f));
  // The norms without a scale (v_norm, the vision embedder's norm) multiply by a weight of ones, exactly.
  for (auto [name, size] : {std::pair{d.vision.headOnes, d.vision.headDim}, {d.vision.dimOnes, d.vision.dim}})
    if (!name.empty() && !model.weights.contains(name))
      model.weights.addOwned(name, {size}, std::vector<float>(static_cast<size_t>(size), 1.0f));
  if (AudioTower &a = d.audio; a.layers > 0) {
    if (!model.weights.contains(a.outOnes))
      model.weights.addOwned(a.outOnes, {a.outDim}, std::vector<float>(static_cast<size_t>(a.outDim), 1.0f));
    // clip(x) clamps to min(gradient_clipping, the largest finite value of the tower's weights' dtype).
    if (const StoredTensor *w = model.weights.find(a.layerWeights[0].ffn1.up.weight); w && w->fileDtype == "F16")
      a.gradientClip = std::min(a.gradientClip, 65504.0f);
    model.weights.addOwned(a.clipLow, {1}, {-a.gradientClip});
    model.weights.addOwned(a.clipHigh, {1}, {a.gradientClip});
  }
  for (int64_t i = 0; i < layers; ++i) // absent: 1, the buffer's initial value in transformers
    if (std::string s = prefix + "layers." + std::to_string(i) + ".layer_scalar"; model.weights.contains(s))
      d.layerWeights[i].layerScalar = s;
  if (auto e = checkWeights(model, dir))
    return e;
  if (d.audio.layers > 0)
    addAudioRelativeTables(model);
  d.embedScale = roundToStored(std::sqrt(static_cast<double>(d.dim)), model.weights.find(d.tokEmbedding)->fileDtype);
  if (pleDim > 0)
    d.ple.tableScale =
        roundToStored(std::sqrt(static_cast<double>(pleDim)), model.weights.find(d.ple.table)->fileDtype);

  // What is left out, in one line each.
  llvm::StringSet<> read;
  for (const auto &[name, shape] : expectedTensors(d))
    read.insert(name);
  size_t unread = 0;
  for (const std::string &name : model.weights.names()) // the files' tensors, not those the importer made
    unread += !read.contains(name) && !model.weights.find(name)->fileDtype.empty();
  if (architecture == "Gemma4ForConditionalGeneration") {
    const bool vision = d.vision.layers > 0, audio = d.audio.layers > 0;
    notes.push_back(std::string("Gemma4ForConditionalGeneration: compiling its text decoder") +
                    (vision && audio ? ", vision tower and audio tower"
                     : vision        ? " and vision tower; the audio tower is left out"
                     : audio         ? " and audio tower; it has no vision_config"
                                     : "; it has no vision_config, and the audio tower is left out"));
  }
  if (unread > 0)
    notes.push_back(std::to_string(unread) + " tensors in the files are not read by the text decoder" +
                    (d.vision.layers > 0 ? " or the vision tower" : "") +
                    (d.audio.layers > 0 ? " or the audio tower" : "") + " (ignored)");
  for (const std::string &n : notes)
    llvm::errs() << "saguaro: " << dir << ": " << n << "\n";
  return llvm::Error::success();
}
