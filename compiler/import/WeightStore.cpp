//===- WeightStore.cpp - named tensors and shape checks --------------------------------===//
#include "compiler/import/ModelDesc.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

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

void WeightStore::addView(const std::string &name, std::vector<int64_t> shape, const float *data,
                          std::string fileDtype) {
  auto t = std::make_unique<StoredTensor>();
  t->shape = std::move(shape);
  t->data = data;
  t->fileDtype = std::move(fileDtype);
  tensors[name] = std::move(t);
}

void WeightStore::addOwned(const std::string &name, std::vector<int64_t> shape, std::vector<float> data,
                           std::string fileDtype) {
  auto t = std::make_unique<StoredTensor>();
  t->shape = std::move(shape);
  t->owned = std::move(data);
  t->fileDtype = std::move(fileDtype);
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

std::vector<std::string> WeightStore::names() const {
  std::vector<std::string> out;
  for (const auto &entry : tensors)
    out.push_back(entry.getKey().str());
  std::sort(out.begin(), out.end());
  return out;
}

namespace {
std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}
} // namespace

std::vector<std::pair<std::string, std::vector<int64_t>>> saguaro::expectedTensors(const ModelDesc &d) {
  std::vector<std::pair<std::string, std::vector<int64_t>>> out;
  auto add = [&](const std::string &name, std::vector<int64_t> shape) {
    if (!name.empty())
      out.push_back({name, std::move(shape)});
  };
  add(d.tokEmbedding, {d.vocab, d.dim});
  add(d.finalNorm, {d.dim});
  if (d.lmHead != d.tokEmbedding)
    add(d.lmHead, {d.vocab, d.dim});
  const PerLayerEmbedding &ple = d.ple;
  if (ple.dim > 0) {
    add(ple.table, {ple.tableRows, d.layers * ple.dim});
    add(ple.projection, {d.layers * ple.dim, d.dim});
    add(ple.projectionNorm, {ple.dim});
  }
  for (auto [i, l] : llvm::enumerate(d.layerWeights)) {
    int64_t hd = d.headDimOf(i), q = d.heads * hd, kv = d.kvHeadsOf(i) * hd, hidden = d.hiddenOf(i);
    for (auto &[name, shape] : std::vector<std::pair<std::string, std::vector<int64_t>>>{
             {l.attnNorm, {d.dim}}, {l.wq, {q, d.dim}}, {l.wk, {kv, d.dim}}, {l.wv, {kv, d.dim}},
             {l.wo, {d.dim, q}}, {l.qNorm, {hd}}, {l.kNorm, {hd}}, {l.vNorm, {hd}},
             {l.postAttnNorm, {d.dim}}, {l.ffnNorm, {d.dim}}, {l.postFfnNorm, {d.dim}},
             {l.gate, {hidden, d.dim}}, {l.up, {hidden, d.dim}}, {l.down, {d.dim, hidden}},
             {l.pleGate, {ple.dim, d.dim}}, {l.pleProjection, {d.dim, ple.dim}}, {l.plePostNorm, {d.dim}},
             {l.layerScalar, {1}}})
      add(name, std::move(shape));
  }
  const VisionTower &v = d.vision;
  if (v.layers > 0) {
    add(v.patchProjection, {v.dim, 3 * v.patchSize * v.patchSize});
    add(v.positionTable, {2, v.positionRows, v.dim});
    add(v.embedProjection, {d.dim, v.dim});
    add(v.stdBias, {v.dim});
    add(v.stdScale, {v.dim});
    add(v.headOnes, {v.headDim});
    add(v.dimOnes, {v.dim});
    int64_t q = v.heads * v.headDim, kv = v.kvHeads * v.headDim;
    for (const VisionTower::Layer &l : v.layerWeights) {
      for (auto &[name, shape] : std::vector<std::pair<std::string, std::vector<int64_t>>>{
               {l.attnNorm, {v.dim}}, {l.postAttnNorm, {v.dim}}, {l.ffnNorm, {v.dim}}, {l.postFfnNorm, {v.dim}},
               {l.qNorm, {v.headDim}}, {l.kNorm, {v.headDim}}})
        add(name, std::move(shape));
      for (auto &[linear, shape] : std::vector<std::pair<const ClippedLinear *, std::vector<int64_t>>>{
               {&l.q, {q, v.dim}}, {&l.k, {kv, v.dim}}, {&l.v, {kv, v.dim}}, {&l.o, {v.dim, q}},
               {&l.gate, {v.hidden, v.dim}}, {&l.up, {v.hidden, v.dim}}, {&l.down, {v.dim, v.hidden}}}) {
        add(linear->weight, std::move(shape));
        for (const std::string *bound : {&linear->inMin, &linear->inMax, &linear->outMin, &linear->outMax})
          add(*bound, {}); // a scalar: shape [] (or any shape of one element)
      }
    }
  }
  if (const AudioTower &a = d.audio; a.layers > 0) {
    const int64_t h = a.dim;
    auto linear = [&](const ClippedLinear &l, int64_t out, int64_t in) {
      add(l.weight, {out, in});
      for (const std::string *bound : {&l.inMin, &l.inMax, &l.outMin, &l.outMax})
        add(*bound, {});
    };
    add(a.conv0, {a.channels0, 1, 3, 3});
    add(a.conv0Norm, {a.channels0});
    add(a.conv1, {a.channels1, a.channels0, 3, 3});
    add(a.conv1Norm, {a.channels1});
    add(a.inputProjection, {h, a.channels0 / 4 * a.channels1});
    add(a.outputProjection, {a.outDim, h});
    add(a.outputBias, {a.outDim});
    add(a.embedProjection, {d.dim, a.outDim});
    add(a.outOnes, {a.outDim});
    add(a.clipLow, {1});
    add(a.clipHigh, {1});
    for (const AudioTower::Layer &l : a.layerWeights) {
      for (const AudioTower::FeedForward *f : {&l.ffn1, &l.ffn2}) {
        add(f->preNorm, {h});
        add(f->postNorm, {h});
        linear(f->up, 4 * h, h);
        linear(f->down, h, 4 * h);
      }
      for (const std::string *norm : {&l.attnPreNorm, &l.attnPostNorm, &l.outNorm, &l.convPreNorm, &l.convNorm})
        add(*norm, {h});
      for (const ClippedLinear *p : {&l.q, &l.k, &l.v, &l.post, &l.convEnd})
        linear(*p, h, h);
      linear(l.convStart, 2 * h, h);
      add(l.perDimScale, {a.headDim});
      add(l.relativeKeys, {h, h});
      add(l.depthwise, {h, 1, a.convKernel});
    }
  }
  return out;
}

llvm::Error saguaro::checkWeights(const ImportedModel &model, llvm::StringRef source) {
  for (const auto &[name, shape] : expectedTensors(model.desc)) {
    const StoredTensor *t = model.weights.find(name);
    if (!t)
      return fileError(source, "missing tensor '" + name + "'");
    int64_t elements = 1;
    for (int64_t n : t->shape)
      elements *= n;
    bool scalar = shape.empty() && elements == 1;
    if (t->shape != shape && !scalar)
      return fileError(source, "tensor '" + name + "' has shape " + shapeString(t->shape) +
                                   ", expected " + shapeString(shape));
  }
  return llvm::Error::success();
}
