//===- HfImport.h - what the Hugging Face importers share -----------------------------===//
//
// HfImport.cpp reads config.json and dispatches on `architectures[0]`; architectures whose
// configuration needs more than a few fields (Gemma 4) have their own file and share these.
//
//===------------------------------------------------------------------------------------===//
#ifndef SAGUARO_COMPILER_IMPORT_HFIMPORT_H
#define SAGUARO_COMPILER_IMPORT_HFIMPORT_H

#include "compiler/import/ModelDesc.h"

#include <initializer_list>
#include <utility>

namespace saguaro {

/// Declares `var` as the value of the llvm::Expected `expr`, or returns its error from the enclosing function.
#define SAGUARO_TRY(var, expr)                                                                                       \
  auto var##OrErr = (expr);                                                                                          \
  if (!var##OrErr)                                                                                                   \
    return var##OrErr.takeError();                                                                                   \
  auto var = *var##OrErr;

/// Typed, error-reporting access to one JSON object of config.json; errors name the file.
class HfConfig {
public:
  HfConfig(const llvm::json::Object &o, std::string path) : o(o), path(std::move(path)) {}

  llvm::Expected<int64_t> integer(llvm::StringRef key) const {
    return required(key, o.getInteger(key), "an integer");
  }
  llvm::Expected<int64_t> integer(llvm::StringRef key, int64_t fallback) const {
    return present(key) ? integer(key) : fallback;
  }
  llvm::Expected<double> number(llvm::StringRef key) const {
    return required(key, o.getNumber(key), "a number");
  }
  llvm::Expected<double> number(llvm::StringRef key, double fallback) const {
    return present(key) ? number(key) : fallback;
  }
  /// A number, or 0 when the field is absent or null (used for optional soft-caps).
  llvm::Expected<double> optionalNumber(llvm::StringRef key) const { return number(key, 0.0); }
  bool boolean(llvm::StringRef key, bool fallback) const { return o.getBoolean(key).value_or(fallback); }
  std::string string(llvm::StringRef key, llvm::StringRef fallback) const {
    return o.getString(key).value_or(fallback).str();
  }
  bool present(llvm::StringRef key) const {
    const llvm::json::Value *v = o.get(key);
    return v && v->kind() != llvm::json::Value::Null;
  }
  /// A size from the config and the most it may be. The bounds lie far beyond any released model; they stop a
  /// hostile config from sizing the per-layer tables the importer builds before any weight is read.
  static constexpr int64_t kMaxSize = int64_t{1} << 24, kMaxLayers = 4096;
  struct Size {
    const char *name;
    int64_t value;
    int64_t most = kMaxSize;
  };
  /// An error naming the first of `fields` whose value is not positive or is above its bound.
  llvm::Error checkSizes(std::initializer_list<Size> fields) const {
    for (const Size &f : fields) {
      if (f.value <= 0)
        return error(llvm::Twine("field '") + f.name + "' must be positive");
      if (f.value > f.most)
        return error(llvm::Twine("field '") + f.name + "' is " + llvm::Twine(f.value) + ", above the " +
                     llvm::Twine(f.most) + " this compiler supports");
    }
    return llvm::Error::success();
  }
  /// The sizes every decoder config states; an error names the first that is not positive.
  struct DecoderSizes {
    int64_t dim, hidden, layers, heads, kvHeads, headDim, vocab, maxPositions;
  };
  /// hidden_size, intermediate_size, num_hidden_layers, num_attention_heads and vocab_size, which every decoder
  /// config must state; kvHeads, headDim and maxPositions (0 here) take the architecture's defaults.
  llvm::Expected<DecoderSizes> statedSizes() const {
    DecoderSizes s{};
    for (auto [key, field] : {std::pair{"hidden_size", &s.dim}, {"intermediate_size", &s.hidden},
                              {"num_hidden_layers", &s.layers}, {"num_attention_heads", &s.heads},
                              {"vocab_size", &s.vocab}}) {
      SAGUARO_TRY(v, integer(key));
      *field = v;
    }
    return s;
  }
  llvm::Error checkSizes(const DecoderSizes &s) const {
    return checkSizes({{"hidden_size", s.dim},
                            {"intermediate_size", s.hidden},
                            {"num_hidden_layers", s.layers, kMaxLayers},
                            {"num_attention_heads", s.heads},
                            {"num_key_value_heads", s.kvHeads},
                            {"head_dim", s.headDim},
                            {"vocab_size", s.vocab},
                            {"max_position_embeddings", s.maxPositions}});
  }
  const llvm::json::Object &object() const { return o; }
  const std::string &file() const { return path; }
  llvm::Error error(const llvm::Twine &message) const { return fileError(path, message); }

private:
  /// `v`, the field's value when it has the wanted type; else "missing field" or "must be <kind>".
  template <class T>
  llvm::Expected<T> required(llvm::StringRef key, std::optional<T> v, llvm::StringRef kind) const {
    if (v)
      return *v;
    return fileError(path, o.get(key) ? "field '" + key + "' must be " + kind : "missing field '" + key + "'");
  }

  const llvm::json::Object &o;
  std::string path;
};

/// Reads model.safetensors, or every shard model.safetensors.index.json names, into the store.
llvm::Error readHfWeights(llvm::StringRef dir, ImportedModel &model);

/// Gemma 4's description from config.json alone (shapes, per-layer attention, tensor names): everything
/// importGemma4 reads before the weights. `notes` receives what the import says once it has succeeded.
llvm::Error describeGemma4(const HfConfig &config, llvm::StringRef architecture, llvm::StringRef dir, ModelDesc &d,
                           std::vector<std::string> &notes);

/// Gemma4ForConditionalGeneration's vision tower from the config's `vision_config` (none: d.vision stays empty) and
/// the processor's soft-token budget from `dir` (Gemma4VisionImport.cpp; the rules: docs/gemma4-vision.md).
llvm::Error describeGemma4Vision(const HfConfig &config, llvm::StringRef dir, ModelDesc &d);

/// Gemma4ForConditionalGeneration's audio tower from the config's `audio_config` (importGemma4 calls it when the
/// files hold the tower's weights; Gemma4AudioImport.cpp; the rules: docs/gemma4-audio.md).
llvm::Error describeGemma4Audio(const HfConfig &config, ModelDesc &d);

/// Adds each audio layer's relative position table (AudioTower::Layer::relativeTable, `llm.local_attention`'s
/// `relative_table`) computed from its `relative_k_proj` weight, which checkWeights has checked.
void addAudioRelativeTables(ImportedModel &model);

/// Imports Gemma4ForCausalLM (`config` is the text config) or Gemma4ForConditionalGeneration (its `text_config`;
/// the towers are left out) from `dir` (Gemma4Import.cpp; the rules: docs/gemma4.md).
llvm::Error importGemma4(const HfConfig &config, llvm::StringRef architecture, llvm::StringRef dir,
                         ImportedModel &model);

} // namespace saguaro

#endif // SAGUARO_COMPILER_IMPORT_HFIMPORT_H
