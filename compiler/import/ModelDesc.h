//===- ModelDesc.h - an imported model, independent of its file format -----------------===//
//
// Importers fill a ModelDesc (the architecture, layer by layer) and a WeightStore (the
// tensors, by name). GraphBuilder turns the pair into the llm dialect.
//
//===------------------------------------------------------------------------------------===//
#ifndef SAGUARO_COMPILER_IMPORT_MODELDESC_H
#define SAGUARO_COMPILER_IMPORT_MODELDESC_H

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>
#include <vector>

namespace saguaro {

/// Names of one decoder layer's tensors; empty when the architecture has no such tensor.
struct LayerWeights {
  std::string attnNorm, wq, wk, wv, wo, qNorm, kNorm;
  std::string postAttnNorm; // sandwich norm on the attention output (Gemma 3)
  std::string ffnNorm;      // norm before the MLP
  std::string postFfnNorm;  // sandwich norm on the MLP output (Gemma 3)
  std::string gate, up, down;
};

/// Attention settings that vary per layer (Gemma 3's local/global pattern).
struct LayerAttention {
  int64_t window = 0;      // 0: full causal attention
  float ropeTheta = 10000.0f;
  float ropePosScale = 1.0f; // linear RoPE scaling factor
  // Llama 3 frequency scaling: {factor, low_freq_factor, high_freq_factor, original_max_position_embeddings};
  // empty when the model has none.
  std::vector<float> ropeLlama3;
};

struct ModelDesc {
  std::string name;         // e.g. "stories260K"
  std::string architecture; // llama2c, llama, qwen3, gemma3
  int64_t dim = 0, hidden = 0, layers = 0, heads = 0, kvHeads = 0, headDim = 0, vocab = 0;
  int64_t maxSeq = 0;       // longest sequence the KV cache holds
  float normEps = 1e-5f;
  bool normAddOne = false;  // Gemma: weight is (1 + w)
  float embedScale = 1.0f;  // Gemma: sqrt(hidden_size)
  int64_t ropeStyle = 1;    // 0: interleaved pairs (llama2.c), 1: halves (HF)
  float attnScale = 0.0f;   // 0: divide by sqrt(head_dim) as llama2.c does
  float attnSoftcap = 0.0f, finalSoftcap = 0.0f;
  std::string activation = "silu"; // or gelu_tanh
  std::string tokEmbedding, finalNorm, lmHead;
  std::vector<LayerWeights> layerWeights;
  std::vector<LayerAttention> layerAttention;
  int64_t hiddenTapLayer = 0; // > 0: llm.hidden_tap after this many decoder layers (the probe's input)
  // The compiled confidence probe's widths (h == 0: none); its weights are the tensors "probe.*".
  struct ProbeHead {
    int64_t h = 0, m1 = 0, m2 = 0;
  } probe;
  int64_t bosId = -1, eosId = -1;
};

/// Element types of stored tensors (the values of saguaro::DType in model_abi.h).
enum class StoredType : uint32_t { F32 = 0, F16 = 1, U8 = 4 };

/// One tensor: float32 (a view into a mapped source file or data the importer owns), or raw bytes
/// of another type (quantized codes and norms made by the compiler).
struct StoredTensor {
  std::vector<int64_t> shape;
  const float *data = nullptr;
  std::vector<float> owned; // set when converted (bf16/f16 -> f32)
  StoredType type = StoredType::F32;
  std::vector<uint8_t> raw; // the bytes when type is not F32
  const void *bytesData() const { return type == StoredType::F32 ? static_cast<const void *>(data) : raw.data(); }
  uint64_t bytes() const {
    if (type != StoredType::F32)
      return raw.size();
    uint64_t n = 4;
    for (int64_t d : shape)
      n *= static_cast<uint64_t>(d);
    return n;
  }
};

/// The tensors of a model by name, plus the mapped files they point into.
class WeightStore {
public:
  /// Adds a view of `count` floats at `data`, owned by a mapped file of this store.
  void addView(const std::string &name, std::vector<int64_t> shape, const float *data);
  /// Adds a tensor whose data the store owns.
  void addOwned(const std::string &name, std::vector<int64_t> shape, std::vector<float> data);
  /// Adds a tensor of raw bytes of `type` (quantized codes, norms).
  void addRaw(const std::string &name, std::vector<int64_t> shape, StoredType type, std::vector<uint8_t> bytes);
  /// Keeps a mapped source file alive as long as the store.
  void keep(std::unique_ptr<llvm::MemoryBuffer> file) { files.push_back(std::move(file)); }
  const StoredTensor *find(llvm::StringRef name) const;
  bool contains(llvm::StringRef name) const { return find(name) != nullptr; }

private:
  llvm::StringMap<std::unique_ptr<StoredTensor>> tensors;
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> files;
};

/// An imported model.
struct ImportedModel {
  ModelDesc desc;
  WeightStore weights;
  std::vector<std::string> sourceFiles; // hashed into the manifest
};

/// Reads a llama2.c checkpoint (legacy version-0 header).
llvm::Error importLlama2c(llvm::StringRef path, ImportedModel &model);

/// Reads a Hugging Face directory (config.json + safetensors, single or sharded).
llvm::Error importHuggingFace(llvm::StringRef dir, ImportedModel &model);

/// Checks that every tensor the description names exists with the expected shape.
llvm::Error checkWeights(const ImportedModel &model, llvm::StringRef source);

/// An error "FILE: message" for the user.
llvm::Error fileError(llvm::StringRef file, const llvm::Twine &message);

/// The JSON text of a file; errors name it ("cannot read: ...", "not valid JSON: ...").
llvm::Expected<llvm::json::Value> readJsonFile(llvm::StringRef path);

} // namespace saguaro

#endif // SAGUARO_COMPILER_IMPORT_MODELDESC_H
