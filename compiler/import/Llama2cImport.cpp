//===- Llama2cImport.cpp - llama2.c checkpoints ----------------------------------------===//
//
// The legacy (version 0) format of karpathy/llama2.c: seven int32 header fields (dim,
// hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len), then float32 weights in
// run.c's order. A negative vocab_size means the classifier is stored separately after the
// RoPE tables; otherwise it is shared with the token embedding.
//
//===------------------------------------------------------------------------------------===//
#include "compiler/import/ModelDesc.h"

#include "llvm/Support/Path.h"

#include <cstring>

using namespace saguaro;

namespace {
/// llama2.c's names: `layers.N.` + these.
constexpr LayerNaming kLlama2cLayerNaming = {"attention_norm", "wq", "wk", "wv", "wo", "w1", "w3", "w2"};

struct Header {
  int32_t dim, hidden, layers, heads, kvHeads, vocab, seqLen;
};

/// Hands out consecutive float tensors from the file, checking the bounds.
class Cursor {
public:
  Cursor(const float *begin, uint64_t count) : at(begin), left(count) {}
  const float *take(uint64_t n) {
    if (n > left)
      return nullptr;
    const float *p = at;
    at += n;
    left -= n;
    return p;
  }
  uint64_t remaining() const { return left; }

private:
  const float *at;
  uint64_t left;
};
} // namespace

llvm::Error saguaro::importLlama2c(llvm::StringRef path, ImportedModel &model) {
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!file)
    return fileError(path, "cannot read: " + file.getError().message());
  llvm::StringRef bytes = (*file)->getBuffer();
  Header h;
  if (bytes.size() < sizeof h)
    return fileError(path, "truncated: " + llvm::Twine(bytes.size()) +
                               " bytes is shorter than the 28-byte llama2.c header");
  std::memcpy(&h, bytes.data(), sizeof h);
  bool shared = h.vocab > 0;
  int64_t vocab = shared ? h.vocab : -static_cast<int64_t>(h.vocab);
  if (h.dim <= 0 || h.hidden <= 0 || h.layers <= 0 || h.heads <= 0 || h.kvHeads <= 0 ||
      vocab <= 0 || h.seqLen <= 0 || h.dim % h.heads != 0 || h.heads % h.kvHeads != 0)
    return fileError(path, "not a llama2.c checkpoint: implausible header (dim " + llvm::Twine(h.dim) +
                               ", heads " + llvm::Twine(h.heads) + ", kv_heads " +
                               llvm::Twine(h.kvHeads) + ", vocab " + llvm::Twine(h.vocab) + ")");
  if ((bytes.size() - sizeof h) % 4 != 0)
    return fileError(path, "truncated: the weights are not a whole number of float32 values");

  ModelDesc &d = model.desc;
  d.name = llvm::sys::path::stem(path).str();
  d.architecture = "llama2c";
  d.dim = h.dim;
  d.hidden = h.hidden;
  d.layers = h.layers;
  d.heads = h.heads;
  d.kvHeads = h.kvHeads;
  d.headDim = h.dim / h.heads;
  d.vocab = vocab;
  d.maxSeq = h.seqLen;
  d.normEps = 1e-5f;
  d.ropeStyle = 0;   // run.c rotates interleaved pairs
  d.attnScale = 0.0f; // and divides scores by sqrtf(head_size)
  d.bosId = 1;
  d.eosId = 2;

  const float *base = reinterpret_cast<const float *>(bytes.data() + sizeof h);
  Cursor cur(base, (bytes.size() - sizeof h) / 4);
  int64_t kvDim = d.kvHeads * d.headDim, L = d.layers;
  WeightStore &w = model.weights;
  bool ok = true;
  // Stacked per-layer arrays [L][rows][cols] are split into one view per layer.
  auto stacked = [&](const char *name, int64_t rows, int64_t cols) {
    const float *p = cur.take(static_cast<uint64_t>(L * rows * cols));
    ok = ok && p;
    for (int64_t l = 0; ok && l < L; ++l) {
      std::vector<int64_t> shape = cols == 1 ? std::vector<int64_t>{rows} : std::vector<int64_t>{rows, cols};
      w.addView("layers." + std::to_string(l) + "." + name, shape, p + l * rows * cols);
    }
  };
  const float *tok = cur.take(static_cast<uint64_t>(vocab * d.dim));
  ok = tok != nullptr;
  if (ok)
    w.addView("tok_embeddings", {vocab, d.dim}, tok);
  stacked("attention_norm", d.dim, 1);
  stacked("wq", d.dim, d.dim);
  stacked("wk", kvDim, d.dim);
  stacked("wv", kvDim, d.dim);
  stacked("wo", d.dim, d.dim);
  stacked("ffn_norm", d.dim, 1);
  stacked("w1", d.hidden, d.dim);
  stacked("w2", d.dim, d.hidden);
  stacked("w3", d.hidden, d.dim);
  const float *finalNorm = ok ? cur.take(static_cast<uint64_t>(d.dim)) : nullptr;
  ok = ok && finalNorm;
  if (ok)
    w.addView("norm", {d.dim}, finalNorm);
  // The legacy RoPE tables (unused: the kernels compute the same values) sit before wcls.
  ok = ok && cur.take(static_cast<uint64_t>(h.seqLen) * (d.headDim / 2) * 2);
  if (ok && !shared) {
    const float *cls = cur.take(static_cast<uint64_t>(vocab * d.dim));
    ok = cls != nullptr;
    if (ok)
      w.addView("output", {vocab, d.dim}, cls);
  }
  if (!ok)
    return fileError(path, "truncated: the header promises more weights than the file's " +
                               llvm::Twine(bytes.size()) + " bytes hold");
  if (cur.remaining() != 0)
    return fileError(path, llvm::Twine(cur.remaining() * 4) +
                               " unexpected bytes after the weights (not a version-0 checkpoint?)");

  d.tokEmbedding = "tok_embeddings";
  d.finalNorm = "norm";
  d.lmHead = shared ? "tok_embeddings" : "output";
  for (int64_t l = 0; l < L; ++l) {
    std::string p = "layers." + std::to_string(l) + ".";
    LayerWeights lw = namedLayerWeights(p, kLlama2cLayerNaming);
    lw.ffnNorm = p + "ffn_norm";
    d.layerWeights.push_back(lw);
    d.layerAttention.push_back(LayerAttention{});
  }
  model.weights.keep(std::move(*file));
  model.sourceFiles.push_back(path.str());
  return checkWeights(model, path);
}
