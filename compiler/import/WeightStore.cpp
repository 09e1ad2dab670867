//===- WeightStore.cpp - named tensors and shape checks --------------------------------===//
#include "compiler/import/ModelDesc.h"

#include "llvm/Support/FormatVariadic.h"

using namespace saguaro;

llvm::Error saguaro::fileError(llvm::StringRef file, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), (file + ": " + message).str());
}

llvm::Expected<llvm::json::Value> saguaro::readJsonFile(llvm::StringRef path) {
  auto text = llvm::MemoryBuffer::getFile(path);
  if (!text)
    return fileError(path, "cannot read: " + text.getError().message());
  auto json = llvm::json::parse((*text)->getBuffer());
  if (!json)
    return fileError(path, "not valid JSON: " + llvm::toString(json.takeError()));
  return json;
}

void WeightStore::addView(const std::string &name, std::vector<int64_t> shape, const float *data) {
  auto t = std::make_unique<StoredTensor>();
  t->shape = std::move(shape);
  t->data = data;
  tensors[name] = std::move(t);
}

void WeightStore::addOwned(const std::string &name, std::vector<int64_t> shape,
                           std::vector<float> data) {
  auto t = std::make_unique<StoredTensor>();
  t->shape = std::move(shape);
  t->owned = std::move(data);
  t->data = t->owned.data();
  tensors[name] = std::move(t);
}

void WeightStore::addRaw(const std::string &name, std::vector<int64_t> shape, StoredType type,
                         std::vector<uint8_t> bytes) {
  auto t = std::make_unique<StoredTensor>();
  t->shape = std::move(shape);
  t->type = type;
  t->raw = std::move(bytes);
  tensors[name] = std::move(t);
}

const StoredTensor *WeightStore::find(llvm::StringRef name) const {
  auto it = tensors.find(name);
  return it == tensors.end() ? nullptr : it->second.get();
}

namespace {
std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}
} // namespace

llvm::Error saguaro::checkWeights(const ImportedModel &model, llvm::StringRef source) {
  const ModelDesc &d = model.desc;
  auto expect = [&](const std::string &name, std::vector<int64_t> shape) -> llvm::Error {
    if (name.empty())
      return llvm::Error::success();
    const StoredTensor *t = model.weights.find(name);
    if (!t)
      return fileError(source, "missing tensor '" + name + "'");
    if (t->shape != shape)
      return fileError(source, "tensor '" + name + "' has shape " + shapeString(t->shape) +
                                   ", expected " + shapeString(shape));
    return llvm::Error::success();
  };
  int64_t q = d.heads * d.headDim, kv = d.kvHeads * d.headDim;
  if (auto e = expect(d.tokEmbedding, {d.vocab, d.dim}))
    return e;
  if (auto e = expect(d.finalNorm, {d.dim}))
    return e;
  if (auto e = expect(d.lmHead, {d.vocab, d.dim}))
    return e;
  for (const LayerWeights &l : d.layerWeights) {
    for (auto [name, shape] : std::vector<std::pair<std::string, std::vector<int64_t>>>{
             {l.attnNorm, {d.dim}}, {l.wq, {q, d.dim}}, {l.wk, {kv, d.dim}}, {l.wv, {kv, d.dim}},
             {l.wo, {d.dim, q}}, {l.qNorm, {d.headDim}}, {l.kNorm, {d.headDim}},
             {l.postAttnNorm, {d.dim}}, {l.ffnNorm, {d.dim}}, {l.postFfnNorm, {d.dim}},
             {l.gate, {d.hidden, d.dim}}, {l.up, {d.hidden, d.dim}}, {l.down, {d.dim, d.hidden}}})
      if (auto e = expect(name, shape))
        return e;
  }
  return llvm::Error::success();
}
