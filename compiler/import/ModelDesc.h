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
  std::string vNorm;        // per-head norm of V (Gemma 4: a weight of ones the importer adds)
  // Gemma 4's per-layer input (PLE): the gate [ple, dim], the projection [dim, ple], the norm after it.
  std::string pleGate, pleProjection, plePostNorm;
  std::string layerScalar;  // a [1] tensor scaling the layer's output, residual included (Gemma 4)
};

/// Where a checkpoint format names one layer's attention and gated-MLP weights: suffixes after the layer's prefix.
struct LayerNaming {
  const char *attnNorm, *wq, *wk, *wv, *wo, *gate, *up, *down;
};

/// Hugging Face's names (`model.layers.N.` + these), shared by Llama, Qwen3, Gemma 3 and Gemma 4.
inline constexpr LayerNaming kHfLayerNaming = {
    "input_layernorm.weight", "self_attn.q_proj.weight", "self_attn.k_proj.weight", "self_attn.v_proj.weight",
    "self_attn.o_proj.weight", "mlp.gate_proj.weight", "mlp.up_proj.weight", "mlp.down_proj.weight"};

/// The weights `naming` spells, under `prefix`; the format's other weights (norms around the MLP, q/k norms) are
/// the caller's to add.
inline LayerWeights namedLayerWeights(const std::string &prefix, const LayerNaming &naming) {
  LayerWeights w;
  w.attnNorm = prefix + naming.attnNorm;
  w.wq = prefix + naming.wq;
  w.wk = prefix + naming.wk;
  w.wv = prefix + naming.wv;
  w.wo = prefix + naming.wo;
  w.gate = prefix + naming.gate;
  w.up = prefix + naming.up;
  w.down = prefix + naming.down;
  return w;
}

/// Attention settings that vary per layer (Gemma 3's local/global pattern; Gemma 4's shapes per layer type).
struct LayerAttention {
  int64_t window = 0;      // 0: full causal attention
  int64_t headDim = 0, kvHeads = 0; // 0: the model's headDim / kvHeads
  int64_t kvLayer = -1;    // >= 0: computes no K/V and attends over that earlier layer's cache (Gemma 4)
  float ropeTheta = 10000.0f;
  float ropePosScale = 1.0f; // linear RoPE scaling factor
  int64_t ropePairs = 0;   // > 0: only the first ropePairs of the head_dim/2 pairs rotate (partial rotary)
  // Llama 3 frequency scaling: {factor, low_freq_factor, high_freq_factor, original_max_position_embeddings};
  // empty when the model has none.
  std::vector<float> ropeLlama3;
};

/// Gemma 4's per-layer embeddings (PLE): per token, `dim` values for each decoder layer, the sum of a gathered
/// table row and a projection of the token's scaled embedding (docs/gemma4.md).
struct PerLayerEmbedding {
  int64_t dim = 0;              // values per layer; 0: the model has no PLE
  int64_t tableRows = 0;        // the table's vocabulary (at least the model's)
  std::string table;            // [tableRows, layers * dim], gathered
  std::string projection;       // [layers * dim, model dim]
  std::string projectionNorm;   // [dim], RMSNorm of each layer's slice of the projection
  float tableScale = 1.0f;      // on the gathered row
  float projectionScale = 1.0f; // on the projection, before its norm
  float sumScale = 1.0f;        // on the sum of the two
};

/// A linear layer of a Gemma 4 tower and, when it is clipped, the one-element tensors bounding its input and
/// output (Gemma4ClippableLinear).
struct ClippedLinear {
  std::string weight;
  std::string inMin, inMax, outMin, outMax; // empty: not clipped
  bool clipped() const { return !inMin.empty(); }
  /// The Gemma4ClippableLinear under `prefix` (its weight under `.linear`), with its four bounds when `clipped`.
  static ClippedLinear of(const std::string &prefix, bool clipped) {
    ClippedLinear l{prefix + ".linear.weight"};
    if (clipped)
      l.inMin = prefix + ".input_min", l.inMax = prefix + ".input_max", l.outMin = prefix + ".output_min",
      l.outMax = prefix + ".output_max";
    return l;
  }
};

/// Gemma 4's vision tower (docs/gemma4-vision.md): the patches of one image -> soft tokens of the decoder's width.
struct VisionTower {
  int64_t layers = 0; // 0: the model has no vision tower
  int64_t dim = 0, hidden = 0, heads = 0, kvHeads = 0, headDim = 0;
  int64_t patchSize = 0, pooling = 0, positionRows = 0;
  int64_t maxSoftTokens = 0; // the budget compiled in: the entry takes maxSoftTokens * pooling^2 patches
  float normEps = 1e-6f, ropeTheta = 100.0f;
  std::string patchProjection; // [dim, 3 * patchSize^2]
  std::string positionTable;   // [2, positionRows, dim]
  std::string embedProjection; // [decoder dim, dim]
  std::string stdBias, stdScale; // [dim] each; empty unless the tower standardizes its output
  std::string headOnes, dimOnes; // weights of ones for the norms without a scale (v_norm, the embedder's norm)
  struct Layer {
    std::string attnNorm, postAttnNorm, ffnNorm, postFfnNorm, qNorm, kNorm;
    ClippedLinear q, k, v, o, gate, up, down;
  };
  std::vector<Layer> layerWeights;
  int64_t imageTokenId = -1, beginId = -1, endId = -1; // the soft-token placeholder and the tokens around it
  int64_t padId = 0; // the text config's pad_token_id: the placeholder rows' lookups (per-layer embedding)
};

/// Gemma 4's audio conformer (docs/gemma4-audio.md): the valid log-mel frames of one clip -> one soft token of the
/// decoder's width per 4 frames (rounded up).
struct AudioTower {
  int64_t layers = 0; // 0: the model has no audio tower
  int64_t dim = 0, heads = 0, headDim = 0, mel = 0; // h, H, D = h / H; mel bins per frame
  int64_t channels0 = 0, channels1 = 0;             // the subsampling convs' output channels
  int64_t chunk = 0, past = 0, future = 0;           // attention_chunk_size, context_left - 1, context_right
  int64_t convKernel = 0, outDim = 0;               // conv_kernel_size, output_proj_dims
  int64_t maxFrames = 0; // valid mel frames per call: the extractor's 30 s cut (2999), rounded up to 4 per token
  float normEps = 1e-6f, residualWeight = 0.5f, logitCap = 50.0f;
  float gradientClip = 1e10f; // clip(x) before the norms: min(gradient_clipping, the weights' dtype max)
  std::string conv0, conv0Norm, conv1, conv1Norm; // [C0, 1, 3, 3], [C0], [C1, C0, 3, 3], [C1]
  std::string inputProjection;                    // [h, mel / 4 * C1]
  std::string outputProjection, outputBias;       // [outDim, h], [outDim]
  std::string embedProjection;                    // [decoder dim, outDim]
  std::string outOnes;                            // ones for the embedder's norm without a scale
  std::string clipLow, clipHigh;                  // one-element -g and g for clip(x)
  struct FeedForward {
    std::string preNorm, postNorm;
    ClippedLinear up, down; // ffw_layer_1 [4h, h], ffw_layer_2 [h, 4h]
  };
  struct Layer {
    FeedForward ffn1, ffn2;
    std::string attnPreNorm, attnPostNorm, outNorm;
    ClippedLinear q, k, v, post;
    std::string perDimScale, relativeKeys; // [D] raw (softplus applied), [h, h]
    std::string relativeTable;             // [C/2 + 1, h]: relativeKeys applied to the sinusoids (the importer's)
    std::string convPreNorm, convNorm, depthwise; // [h], [h], [h, 1, K]
    ClippedLinear convStart, convEnd;             // linear_start [2h, h], linear_end [h, h]
  };
  std::vector<Layer> layerWeights;
  int64_t audioTokenId = -1, beginId = -1, endId = -1; // the soft-token placeholder and the tokens around it
  int64_t padId = 0; // the text config's pad_token_id: the placeholder rows' lookups (per-layer embedding)
};

struct ModelDesc {
  std::string name;         // e.g. "stories260K"
  std::string architecture; // llama2c, llama, qwen3, gemma3, gemma4
  int64_t dim = 0, hidden = 0, layers = 0, heads = 0, kvHeads = 0, headDim = 0, vocab = 0;
  std::vector<int64_t> layerHidden; // per-layer MLP width when layers differ (Gemma 4's double-wide MLPs)
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
  PerLayerEmbedding ple;
  VisionTower vision;
  AudioTower audio;
  int64_t hiddenTapLayer = 0; // > 0: llm.hidden_tap after this many decoder layers (the probe's input)
  // The compiled confidence probe's widths (h == 0: none); its weights are the tensors "probe.*".
  struct ProbeHead {
    int64_t h = 0, m1 = 0, m2 = 0;
  } probe;
  int64_t bosId = -1, eosId = -1;

  /// Layer l's head dim, KV heads and MLP width: its own where the architecture varies them, else the model's.
  int64_t headDimOf(int64_t l) const {
    return layerAttention.empty() || !layerAttention[l].headDim ? headDim : layerAttention[l].headDim;
  }
  int64_t kvHeadsOf(int64_t l) const {
    return layerAttention.empty() || !layerAttention[l].kvHeads ? kvHeads : layerAttention[l].kvHeads;
  }
  int64_t hiddenOf(int64_t l) const { return layerHidden.empty() ? hidden : layerHidden[l]; }
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
  std::string fileDtype;    // its dtype in the source file ("F32", "BF16", "F16"); empty when the compiler made it
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
  void addView(const std::string &name, std::vector<int64_t> shape, const float *data,
               std::string fileDtype = "");
  /// Adds a tensor whose data the store owns; `fileDtype` is its dtype in the source file, if it comes from one.
  void addOwned(const std::string &name, std::vector<int64_t> shape, std::vector<float> data,
                std::string fileDtype = "");
  /// Adds a tensor of raw bytes of `type` (quantized codes, norms).
  void addRaw(const std::string &name, std::vector<int64_t> shape, StoredType type, std::vector<uint8_t> bytes);
  /// Keeps a mapped source file alive as long as the store.
  void keep(std::unique_ptr<llvm::MemoryBuffer> file) { files.push_back(std::move(file)); }
  const StoredTensor *find(llvm::StringRef name) const;
  bool contains(llvm::StringRef name) const { return find(name) != nullptr; }
  /// The names of every tensor, sorted.
  std::vector<std::string> names() const;

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

/// Every tensor the description names with the shape it must have (a tied head once).
std::vector<std::pair<std::string, std::vector<int64_t>>> expectedTensors(const ModelDesc &d);

/// Checks that every tensor the description names exists with the expected shape.
llvm::Error checkWeights(const ImportedModel &model, llvm::StringRef source);

/// An error "FILE: message" for the user.
llvm::Error fileError(llvm::StringRef file, const llvm::Twine &message);

/// The JSON text of a file; errors name it ("cannot read: ...", "not valid JSON: ...").
llvm::Expected<llvm::json::Value> readJsonFile(llvm::StringRef path);

} // namespace saguaro

#endif // SAGUARO_COMPILER_IMPORT_MODELDESC_H
