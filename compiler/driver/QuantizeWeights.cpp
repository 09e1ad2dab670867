//===- QuantizeWeights.cpp - store the weights the cq-quantize pass chose --------------===//
#include "compiler/driver/QuantizeWeights.h"

#include "codegen/kernels/include/saguaro/kernels/cq_format.h"
#include "compiler/driver/Compile.h"
#include "compiler/quantize/quantize.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstring>
#include <set>

using namespace saguaro;

namespace {
/// The policy kinds: each names a group of the model's weight matrices (docs/user-guide.md, `--policy`).
constexpr const char *kPolicyKinds = "linear, embedding, per_layer_embedding";

/// Every weight matrix of the model of `kind`, each once: `linear` the matrices of products (the layers'
/// attention, MLP and per-layer-input matrices, Gemma 4's per-layer-input projection, an untied head),
/// `embedding` the token embedding (also the head when tied), `per_layer_embedding` Gemma 4's per-layer-embedding
/// table. False for an unknown kind.
bool tensorsOfKind(const ModelDesc &d, llvm::StringRef kind, std::vector<std::string> &out) {
  std::vector<std::string> names;
  if (kind == "embedding") {
    names = {d.tokEmbedding};
  } else if (kind == "per_layer_embedding") {
    names = {d.ple.table};
  } else if (kind == "linear") {
    for (const LayerWeights &l : d.layerWeights)
      names.insert(names.end(), {l.wq, l.wk, l.wv, l.wo, l.gate, l.up, l.down, l.pleGate, l.pleProjection});
    names.push_back(d.ple.projection);
    if (d.lmHead != d.tokEmbedding)
      names.push_back(d.lmHead);
  } else {
    return false;
  }
  std::set<std::string> seen; // attention_k_eq_v names k_proj as V too
  for (const std::string &n : names)
    if (!n.empty() && seen.insert(n).second)
      out.push_back(n);
  return true;
}

/// W[count] in IEEE binary16 (round to nearest even, little-endian bits), or why it cannot be stored so: a value
/// that is not finite or rounds past binary16's largest, ±65504.
std::string toHalf(const float *w, int64_t count, std::vector<uint8_t> &out) {
  out.resize(static_cast<size_t>(count) * 2);
  for (int64_t i = 0; i < count; ++i) {
    uint16_t h = kernels::cq::float_to_half(w[i]);
    if ((h & 0x7C00u) == 0x7C00u)
      return "value " + std::to_string(w[i]) + " at element " + std::to_string(i) +
             " does not fit binary16 (finite, magnitude up to 65504)";
    std::memcpy(out.data() + 2 * i, &h, 2);
  }
  return "";
}

/// A progress bar redrawn in place on a terminal (logs get only the final summary line).
void progress(size_t done, size_t total, double seconds) {
  if (!llvm::errs().is_displayed())
    return;
  int width = 30, filled = total ? static_cast<int>(width * done / total) : width;
  llvm::errs() << "\rsaguaro: quantizing [" << std::string(filled, '#') << std::string(width - filled, ' ') << "] "
               << done << "/" << total << " tensors, " << llvm::format("%.1f", seconds) << " s";
  if (done == total)
    llvm::errs() << "\n";
}
} // namespace

llvm::Error saguaro::readPolicy(llvm::StringRef path, const ImportedModel &model,
                                std::vector<std::pair<std::string, int64_t>> &policy) {
  auto json = readJsonFile(path);
  if (!json)
    return json.takeError();
  const llvm::json::Object *o = json->getAsObject();
  if (!o)
    return fileError(path, "must be a JSON object of tensor name or kind -> bits");
  // Kinds first, so that a tensor named explicitly overrides its kind.
  std::vector<std::pair<std::string, int64_t>> kinds, names;
  for (const auto &[key, value] : *o) {
    std::optional<int64_t> bits = value.getAsInteger();
    if (!bits || !isWeightBits(*bits))
      return fileError(path, "'" + key.str() + "' must map to " + kWeightBitsList + " bits");
    std::vector<std::string> members;
    if (tensorsOfKind(model.desc, key, members)) {
      for (const std::string &m : members)
        kinds.push_back({m, *bits});
    } else if (!model.weights.contains(key)) {
      return fileError(path, "names unknown tensor '" + key.str() + "' (or kind; kinds are " + kPolicyKinds + ")");
    } else {
      names.push_back({key.str(), *bits});
    }
  }
  policy = kinds;
  policy.insert(policy.end(), names.begin(), names.end());
  return llvm::Error::success();
}

llvm::Error saguaro::quantizeWeights(mlir::ModuleOp module, ImportedModel &model, const HessianMap &hessians,
                                     std::optional<float> damp) {
  auto chosen = module->getAttrOfType<mlir::DictionaryAttr>("cq.quantized");
  if (!chosen || chosen.empty())
    return llvm::Error::success();
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  std::set<std::pair<int, int>> codebooks;
  size_t done = 0, halves = 0;
  for (mlir::NamedAttribute entry : chosen) {
    std::string name = entry.getName().str();
    int bits = static_cast<int>(mlir::cast<mlir::IntegerAttr>(entry.getValue()).getInt());
    const StoredTensor *w = model.weights.find(name);
    if (!w || w->shape.size() != 2)
      return fileError(name, "cannot quantize: not a matrix of the model");
    int64_t n = w->shape[0], k = w->shape[1];
    if (bits == 16) { // binary16, read by the f16 kernels; replaces the float32 tensor of the same name
      std::vector<uint8_t> half;
      if (std::string problem = toHalf(w->data, n * k, half); !problem.empty())
        return fileError(name, "cannot store in binary16: " + problem);
      model.weights.addRaw(name, {n, k}, StoredType::F16, std::move(half));
      ++halves;
      progress(++done, chosen.size(), elapsed());
      continue;
    }
    std::string problem = quant::cq_input_error(w->data, n, k, bits);
    if (!problem.empty())
      return fileError(name, "cannot quantize: " + problem);
    auto h = hessians.find(name); // a valid K×K Hessian when present (measureHessians checks each)
    quant::CqTensor q = h != hessians.end() ? quant::cq_with_error_feedback(w->data, n, k, bits, h->second, damp)
                                            : quant::quantize_cq(w->data, n, k, bits);
    std::vector<uint8_t> norms(q.norms.size() * 2);
    std::memcpy(norms.data(), q.norms.data(), norms.size());
    int64_t rowBytes = n ? static_cast<int64_t>(q.codes.size()) / n : 0;
    model.weights.addRaw(name + ".codes", {n, rowBytes}, StoredType::U8, std::move(q.codes));
    model.weights.addRaw(name + ".norms", {n, q.groups}, StoredType::F16, std::move(norms));
    codebooks.insert({bits, q.g});
    progress(++done, chosen.size(), elapsed());
  }
  for (auto [bits, g] : codebooks) {
    const std::vector<float> &c = quant::codebook(g, bits);
    // Codebooks are float32 data the store owns.
    model.weights.addOwned("cq.codebook.b" + std::to_string(bits) + ".g" + std::to_string(g),
                           {static_cast<int64_t>(c.size())}, c);
  }
  llvm::errs() << "saguaro: quantized " << done - halves << " tensors"
               << (halves ? ", stored " + std::to_string(halves) + " in binary16," : "") << " in "
               << llvm::format("%.1f", elapsed()) << " s\n";
  return llvm::Error::success();
}
