//===- Manifest.cpp - manifest.json ----------------------------------------------------===//
//
// What a bundle is, for people and tools to read: the model's shape, the target and the CPU
// extensions it needs, every stored tensor with its quantization, layout and residency, the
// bits per weight of quantized matrices, the memory plan and the taps.
//
//===------------------------------------------------------------------------------------===//
#include "codegen/emit/BundleParts.h"

#include "saguaro/kernels/cpu_features.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace saguaro;
using namespace saguaro::bundle;

namespace {
/// How a tensor is stored: "none", or "cq<bits>" for codes and norms, or "codebook".
std::string quantizationOf(ModuleOp m, llvm::StringRef name) {
  auto quantized = m->getAttrOfType<DictionaryAttr>("cq.quantized");
  for (llvm::StringRef suffix : {".codes", ".norms"})
    if (quantized && name.ends_with(suffix))
      if (auto bits = quantized.getAs<IntegerAttr>(name.drop_back(suffix.size())))
        return "cq" + std::to_string(bits.getInt());
  return name.starts_with("cq.codebook.") ? "codebook" : "none";
}

llvm::json::Array tensors(ModuleOp m, const ModuleFacts &facts, const BundleInputs &in) {
  llvm::json::Array tensors;
  for (const std::string &name : facts.slots) {
    BundleTensor t = *in.tensor(name);
    llvm::json::Array shape;
    for (int64_t dim : t.shape)
      shape.push_back(dim);
    tensors.push_back(llvm::json::Object{{"name", name},
                                         {"shape", std::move(shape)},
                                         {"dtype", llvm::StringRef(dtypeName(t.dtype)).lower()},
                                         {"quantization", quantizationOf(m, name)},
                                         {"layout", facts.layoutOf(name)},
                                         {"residency", facts.gathered.count(name) ? "mapped" : "resident"},
                                         {"bytes", static_cast<int64_t>(t.bytes)}});
  }
  return tensors;
}

/// Bits per stored weight of every quantized matrix: (codes + norms) bytes * 8 / (N * K).
llvm::json::Array quantizedMatrices(ModuleOp m, const BundleInputs &in) {
  llvm::json::Array quantized;
  if (auto q = m->getAttrOfType<DictionaryAttr>("cq.quantized"))
    for (NamedAttribute entry : q) {
      std::string name = entry.getName().str();
      std::optional<BundleTensor> w = in.tensor(name), codes = in.tensor(name + ".codes"),
                                  norms = in.tensor(name + ".norms");
      if (!w || !codes || !norms || w->shape.size() != 2)
        continue;
      double weights = static_cast<double>(w->shape[0]) * static_cast<double>(w->shape[1]);
      quantized.push_back(llvm::json::Object{
          {"name", name},
          {"bits", cast<IntegerAttr>(entry.getValue()).getInt()},
          {"bits_per_weight", 8.0 * static_cast<double>(codes->bytes + norms->bytes) / weights}});
    }
  return quantized;
}

/// kern.memory_plan: each entry point's arena and buffers.
llvm::json::Object memoryPlan(ModuleOp m) {
  llvm::json::Object plan;
  if (auto plans = m->getAttrOfType<DictionaryAttr>("kern.memory_plan"))
    for (NamedAttribute entry : plans) {
      auto fn = cast<DictionaryAttr>(entry.getValue());
      llvm::json::Array buffers;
      for (Attribute buffer : cast<ArrayAttr>(fn.get("buffers"))) {
        llvm::json::Object b;
        for (NamedAttribute field : cast<DictionaryAttr>(buffer))
          b[field.getName().str()] = cast<IntegerAttr>(field.getValue()).getInt();
        buffers.push_back(std::move(b));
      }
      plan[entry.getName().str()] = llvm::json::Object{
          {"arena_bytes", cast<IntegerAttr>(fn.get("arena_bytes")).getInt()}, {"buffers", std::move(buffers)}};
    }
  return plan;
}

llvm::json::Array taps(const ModuleFacts &facts) {
  llvm::json::Array taps;
  for (auto [id, tap] : llvm::enumerate(facts.taps)) {
    llvm::json::Object entry{{"id", static_cast<int64_t>(id)}, {"cols", tap.cols}, {"kind", tap.kind}};
    if (tap.layer)
      entry["layer"] = *tap.layer;
    if (tap.weights)
      entry["weights"] = llvm::json::Array(*tap.weights);
    taps.push_back(std::move(entry));
  }
  return taps;
}
/// The KV caches, one per layer that computes K/V: its positions (max_seq, or a sliding layer's window) and bytes
/// (K and V); kv_cache_bytes is their sum.
llvm::json::Array kvCaches(const ModuleFacts &facts) {
  int64_t elementBytes = facts.kvType == "f16" ? 2 : 4;
  llvm::json::Array caches;
  for (const KvCache &c : facts.kvCaches)
    caches.push_back(llvm::json::Object{{"layer", c.layer},
                                        {"window", c.window},
                                        {"positions", c.positions},
                                        {"kv_heads", c.kvHeads},
                                        {"head_dim", c.headDim},
                                        {"bytes", 2 * c.positions * c.kvHeads * c.headDim * elementBytes}});
  return caches;
}
} // namespace

llvm::json::Value bundle::manifest(ModuleOp m, const ModuleFacts &facts, const BundleInputs &in,
                                   const BlobSizes &blob) {
  const BundleModel &d = in.model;
  llvm::json::Array sources;
  for (const auto &[file, hash] : in.sourceHashes)
    sources.push_back(llvm::json::Object{{"file", file}, {"xxh64", hash}});
  // What the CPU must have beyond its architecture's baseline (the bundle refuses a CPU without it at open).
  llvm::json::Array cpuExtensions;
  saguaro::kernels::for_each_extension(in.target.c_str(),
                                       [&](const std::string &extension) { cpuExtensions.push_back(extension); });
  // Resident: what a run holds whatever it reads (arena, KV cache, the blob but its mapped section); mapped: the
  // tables only gathered, of which a run holds the pages of the rows it reads.
  const int64_t arena = facts.arenaBytes, kv = facts.kvBytes, mapped = static_cast<int64_t>(blob.mapped_bytes),
                resident = arena + kv + static_cast<int64_t>(blob.file_bytes) - mapped;
  llvm::json::Object manifest{
      {"compiler", kCompilerVersion},
      {"model", llvm::json::Object{{"name", d.name},
                                   {"architecture", d.architecture},
                                   {"dim", d.dim},
                                   {"hidden", d.hidden},
                                   {"layers", d.layers},
                                   {"heads", d.heads},
                                   {"kv_heads", d.kvHeads},
                                   {"head_dim", d.headDim},
                                   {"vocab", d.vocab},
                                   {"max_seq", d.maxSeq}}},
      {"target", in.target},
      {"cpu_extensions", std::move(cpuExtensions)},
      {"handoff", in.handoff},
      {"prefill_chunk", in.prefillChunk},
      {"sources", std::move(sources)},
      {"tensors", tensors(m, facts, in)},
      {"quantized", quantizedMatrices(m, in)},
      {"memory", llvm::json::Object{{"arena_bytes", arena},
                                    {"kv_cache_bytes", kv},
                                    {"kv_cache", facts.kvType},
                                    {"kv_caches", kvCaches(facts)},
                                    {"weights_blob_bytes", static_cast<int64_t>(blob.file_bytes)},
                                    {"resident_bytes", resident},
                                    {"mapped_bytes", mapped},
                                    {"planned_peak_bytes", resident + mapped},
                                    {"plan", memoryPlan(m)}}}};
  if (!facts.taps.empty())
    manifest["taps"] = taps(facts);
  if (const std::optional<BundleVision> &v = d.vision)
    manifest["vision"] = llvm::json::Object{{"layers", v->layers},
                                            {"dim", v->dim},
                                            {"hidden", v->hidden},
                                            {"heads", v->heads},
                                            {"kv_heads", v->kvHeads},
                                            {"head_dim", v->headDim},
                                            {"patch_size", v->patchSize},
                                            {"pooling", v->pooling},
                                            {"max_patches", v->maxRows},
                                            {"max_soft_tokens", v->maxRows / (v->pooling * v->pooling)},
                                            {"position_limit", v->positionLimit},
                                            {"image_token_id", v->tokenId},
                                            {"begin_image_token_id", v->beginId},
                                            {"end_image_token_id", v->endId},
                                            {"pad_token_id", v->padId},
                                            {"arena_bytes", facts.visionArenaBytes}};
  if (const std::optional<BundleAudio> &a = d.audio)
    manifest["audio"] = llvm::json::Object{{"layers", a->layers},
                                           {"dim", a->dim},
                                           {"heads", a->heads},
                                           {"past", a->past},
                                           {"channels", llvm::json::Array{a->channels0, a->channels1}},
                                           {"proj_dims", a->projDims},
                                           {"conv_kernel", a->convKernel},
                                           {"mel", a->mel},
                                           {"max_frames", a->maxFrames},
                                           {"max_soft_tokens", (a->maxFrames + 3) / 4},
                                           {"audio_token_id", a->tokenId},
                                           {"begin_audio_token_id", a->beginId},
                                           {"end_audio_token_id", a->endId},
                                           {"pad_token_id", a->padId},
                                           {"arena_bytes", facts.audioArenaBytes}};
  return manifest;
}
