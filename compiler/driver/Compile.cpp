//===- Compile.cpp - model files -> bundle ---------------------------------------------===//
#include "compiler/driver/Compile.h"

#include "codegen/emit/EmitBundle.h"
#include "compiler/import/GraphBuilder.h"
#include "compiler/import/ModelDesc.h"
#include "ChatCompiler.h"
#include "compiler/tokenizer/TokenizerSource.h"
#include "compiler/driver/BundleCache.h"
#include "compiler/driver/Calibrate.h"
#include "compiler/driver/Eval.h"
#include "compiler/driver/FirmwareBundle.h"
#include "compiler/driver/QuantizeWeights.h"
#include "compiler/pipelines/Pipelines.h"
#include "probe/probe_file.h"
#include "saguaro/xxh64.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstring>

using namespace saguaro;

namespace {
bool isDirectory(const std::string &p) { return llvm::sys::fs::is_directory(p); }

llvm::Error importModel(const CompileOptions &o, ImportedModel &model) {
  if (!llvm::sys::fs::exists(o.model))
    return fileError(o.model, "no such file or directory");
  return isDirectory(o.model) ? importHuggingFace(o.model, model) : importLlama2c(o.model, model);
}

/// The tokenizer to compile in: --tokenizer, else the one a model directory carries. A tokenizer found
/// beside the model that cannot be compiled yet is left out with a warning (logits still work).
llvm::Error importTokenizer(const CompileOptions &o, BundleInputs &in, std::vector<std::string> &files) {
  std::string path = o.tokenizer;
  bool found = path.empty();
  if (found && isDirectory(o.model))
    path = find_tokenizer_in(o.model);
  if (path.empty())
    return llvm::Error::success(); // a bundle without a tokenizer still computes logits
  TokenizerTensor tok;
  std::string err;
  if (!import_tokenizer(path, &tok, &err)) {
    if (!found)
      return llvm::createStringError(llvm::inconvertibleErrorCode(), err);
    llvm::errs() << "saguaro: warning: compiling without a tokenizer: " << err << "\n";
    return llvm::Error::success();
  }
  in.tokenizerTensor = tok.name;
  in.tokenizer = std::move(tok.bytes);
  in.metadata.insert(in.metadata.end(), tok.meta.begin(), tok.meta.end());
  files.push_back(path);
  return llvm::Error::success();
}
/// The chat template to compile in: --chat-template FILE, else the `chat_template` of the model's
/// tokenizer_config.json (or a chat_template.jinja beside it); none when neither exists.
llvm::Error importChatTemplate(const CompileOptions &o, BundleInputs &in, std::vector<std::string> &files) {
  std::string config, text, err;
  if (isDirectory(o.model)) {
    llvm::SmallString<256> p(o.model);
    llvm::sys::path::append(p, "tokenizer_config.json");
    if (llvm::sys::fs::exists(p))
      config = p.str().str();
  }
  ChatTemplateOptions options;
  if (!config.empty() && !read_chat_special_tokens(config, &options, &err))
    return llvm::createStringError(llvm::inconvertibleErrorCode(), err);
  std::string source = o.chatTemplate;
  if (!source.empty()) {
    auto file = llvm::MemoryBuffer::getFile(source);
    if (!file)
      return fileError(source, "cannot read: " + file.getError().message());
    text = (*file)->getBuffer().str();
  } else {
    if (config.empty())
      return llvm::Error::success();
    llvm::SmallString<256> jinja(llvm::sys::path::parent_path(config));
    llvm::sys::path::append(jinja, "chat_template.jinja");
    auto cfg = llvm::MemoryBuffer::getFile(config);
    auto parsed = cfg ? llvm::json::parse((*cfg)->getBuffer()) : llvm::Expected<llvm::json::Value>(nullptr);
    bool declared = parsed && parsed->getAsObject() && parsed->getAsObject()->get("chat_template") &&
                    parsed->getAsObject()->get("chat_template")->kind() != llvm::json::Value::Null;
    if (!parsed)
      llvm::consumeError(parsed.takeError());
    if (!declared && !llvm::sys::fs::exists(jinja))
      return llvm::Error::success(); // the model has no chat template
    if (!read_chat_template(config, &text, &err))
      return llvm::createStringError(llvm::inconvertibleErrorCode(), err);
    source = config;
  }
  if (!compile_chat_template(text, options, &in.chatTemplate, &err))
    return fileError(source, err);
  files.push_back(source);
  return llvm::Error::success();
}
} // namespace

namespace {
/// What the bundle states about the model.
BundleModel bundleModel(const ModelDesc &d) {
  BundleModel m;
  m.name = d.name, m.architecture = d.architecture;
  m.dim = d.dim, m.hidden = d.hidden, m.layers = d.layers, m.heads = d.heads, m.kvHeads = d.kvHeads;
  m.headDim = d.headDim, m.vocab = d.vocab, m.maxSeq = d.maxSeq;
  for (const LayerAttention &a : d.layerAttention)
    m.windows.push_back(a.window);
  m.probe = d.probe.h > 0;
  if (const VisionTower &v = d.vision; v.layers > 0)
    m.vision = BundleVision{v.maxSoftTokens * v.pooling * v.pooling, 3 * v.patchSize * v.patchSize, v.patchSize,
                            v.pooling, v.positionRows, d.dim, v.imageTokenId, v.beginId, v.endId, v.padId, v.layers,
                            v.dim, v.hidden, v.heads, v.kvHeads, v.headDim};
  if (const AudioTower &a = d.audio; a.layers > 0)
    m.audio = BundleAudio{a.maxFrames, a.mel,     d.dim,    a.audioTokenId, a.beginId, a.endId, a.padId,
                          a.layers,    a.dim,     a.heads,  a.convKernel,  a.past,    a.channels0,
                          a.channels1, a.outDim};
  return m;
}

/// Folds a trained probe file into the model: its widths, its layer's hidden tap and its weights as "probe.*".
llvm::Error addProbe(const CompileOptions &o, ImportedModel &model) {
  ModelDesc &d = model.desc;
  probe::ProbeWeights p;
  std::string error;
  if (!probe::read_probe_file(o.probe, p, error))
    return llvm::createStringError(llvm::inconvertibleErrorCode(), error);
  if (p.shape.d != d.dim)
    return fileError(o.probe, "the probe expects width " + llvm::Twine(p.shape.d) + " but " + o.model +
                                  " has hidden size " + llvm::Twine(d.dim));
  if (p.tap_layer < 1 || p.tap_layer > d.layers)
    return fileError(o.probe, "the probe reads layer " + llvm::Twine(p.tap_layer) + " but " + o.model + " has " +
                                  llvm::Twine(d.layers) + " layers");
  if (d.hiddenTapLayer != 0 && d.hiddenTapLayer != p.tap_layer)
    return fileError(o.probe, "the probe reads layer " + llvm::Twine(p.tap_layer) + ", not --hidden-tap " +
                                  llvm::Twine(d.hiddenTapLayer));
  d.hiddenTapLayer = p.tap_layer;
  d.probe = {p.shape.h, p.shape.m1, p.shape.m2};
  const probe::ProbeLayout l = probe::probe_layout(p.shape, probe::PoolKind::attention);
  auto add = [&](const char *name, size_t offset, std::vector<int64_t> shape) {
    size_t n = 1;
    for (int64_t s : shape)
      n *= static_cast<size_t>(s);
    model.weights.addOwned(std::string("probe.") + name, shape,
                           std::vector<float>(p.params.begin() + offset, p.params.begin() + offset + n));
  };
  const int64_t dd = p.shape.d, h = p.shape.h, m1 = p.shape.m1, m2 = p.shape.m2;
  add("gamma", l.gamma, {dd}), add("beta", l.beta, {dd}), add("w0", l.w0, {h, dd}), add("b0", l.b0, {h});
  add("query", l.query, {h}), add("w1", l.w1, {m1, h}), add("b1", l.b1, {m1}), add("w2", l.w2, {m2, m1});
  add("b2", l.b2, {m2}), add("w3", l.w3, {m2}), add("b3", l.b3, {1});
  return llvm::Error::success();
}
} // namespace

llvm::Expected<std::string> saguaro::bundleKey(const CompileOptions &o) {
  auto selfHash = compilerHash();
  if (!selfHash)
    return selfHash.takeError();
  // Without --damp each matrix gets quant::default_damp(bits): its bits are keyed (bits, bpw, policy file) and the
  // function is part of the executable's hash.
  std::string damp = o.damp ? std::to_string(*o.damp) : "per-bits";
  std::string key = "saguaro 0.1.0|" + hex64(*selfHash) + "|" + o.target + "|" + std::to_string(o.maxSeq) + "|" +
                    std::to_string(o.prefillChunk) + "|" + o.tokenizer + "|" + o.chatTemplate + "|" +
                    std::to_string(o.bits) + "|" + std::to_string(o.bpw) + "|damp=" + damp + "|" +
                    (o.calibrationTaps ? "taps|" : "") + "act=" + o.cqActivations + "|kv=" + o.kvCache + "|hidden=" +
                    std::to_string(o.hiddenTapLayer) + "|" + (o.handoff ? "handoff|" : "") +
                    (o.embedWeights ? "embed|" : "") + (o.threadPool ? "" : "no-thread-pool|");
  // Bundles carry copies of runtime-min and the kernels (and with --handoff of handoff/), so their sources are part
  // of the key as well.
  std::vector<std::string> shipped, trees = {"runtime-min", "codegen/kernels"};
  if (o.handoff)
    trees.push_back("handoff");
  for (const std::string &tree : trees) {
    std::error_code ec;
    llvm::SmallString<256> root(SAGUARO_SOURCE_DIR);
    llvm::sys::path::append(root, tree);
    for (llvm::sys::fs::recursive_directory_iterator it(root, ec), end; it != end && !ec; it.increment(ec))
      if (!isDirectory(it->path()))
        shipped.push_back(it->path());
  }
  std::sort(shipped.begin(), shipped.end());
  for (const std::string &f : shipped) {
    auto h = hashFile(f);
    if (!h)
      return h.takeError();
    key += f.substr(std::strlen(SAGUARO_SOURCE_DIR)) + "=" + hex64(*h) + "|";
  }
  std::vector<std::string> files;
  if (isDirectory(o.model)) {
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(o.model, ec), end; it != end && !ec; it.increment(ec))
      files.push_back(it->path());
    std::sort(files.begin(), files.end());
  } else {
    files.push_back(o.model);
  }
  if (!o.tokenizer.empty())
    files.push_back(o.tokenizer);
  if (!o.chatTemplate.empty())
    files.push_back(o.chatTemplate);
  if (!o.policy.empty())
    files.push_back(o.policy);
  if (!o.calibration.empty())
    files.push_back(o.calibration);
  if (!o.probe.empty())
    files.push_back(o.probe);
  for (const std::string &f : files) {
    if (isDirectory(f))
      continue;
    auto h = hashFile(f);
    if (!h)
      return h.takeError();
    key += llvm::sys::path::filename(f).str() + "=" + hex64(*h) + "|";
  }
  return hex64(xxh64(key.data(), key.size(), 0));
}

llvm::Error saguaro::compileBundle(const CompileOptions &o, const std::string &outDir) {
  if (o.embedWeights)
    if (auto e = checkEmbeddable(o))
      return e;
  ImportedModel model;
  if (auto e = importModel(o, model))
    return e;
  ModelDesc &d = model.desc;
  d.maxSeq = o.maxSeq > 0 ? o.maxSeq : std::min(d.maxSeq, kDefaultMaxSeq);
  int64_t chunk = o.prefillChunk > 0 ? o.prefillChunk : std::min(kDefaultPrefillChunk, d.maxSeq);
  d.hiddenTapLayer = o.hiddenTapLayer == kHiddenTapAuto ? defaultHiddenTapLayer(d.layers) : o.hiddenTapLayer;
  if (!o.probe.empty())
    if (auto e = addProbe(o, model))
      return e;
  if (d.hiddenTapLayer < 0 || d.hiddenTapLayer > d.layers)
    return fileError(o.model, "--hidden-tap must be between 1 and the model's " + llvm::Twine(d.layers) +
                                  " layers, got " + llvm::Twine(d.hiddenTapLayer));
  if (chunk > d.maxSeq)
    return fileError(o.model, "--prefill-chunk must be between 1 and the sequence length " +
                                  llvm::Twine(d.maxSeq));

  BundleInputs in;
  in.model = bundleModel(model.desc);
  in.tensor = [&model](llvm::StringRef name) -> std::optional<BundleTensor> {
    const StoredTensor *t = model.weights.find(name);
    if (!t)
      return std::nullopt;
    // StoredType's values are the model ABI's DType values.
    return BundleTensor{t->shape, static_cast<DType>(t->type), t->bytesData(), t->bytes()};
  };
  in.target = o.target;
  in.prefillChunk = chunk;
  in.runtimeSourceDir = SAGUARO_SOURCE_DIR;
  in.blobSchemaHeader = SAGUARO_BLOB_SCHEMA_HEADER;
  in.handoff = o.handoff;
  in.embedWeights = o.embedWeights;
  in.threadPool = o.threadPool;
  in.metadata.push_back({"model.name", d.name});
  in.metadata.push_back({"model.architecture", d.architecture});
  std::vector<std::string> hashed = model.sourceFiles;
  if (auto e = importTokenizer(o, in, hashed))
    return e;
  if (auto e = importChatTemplate(o, in, hashed))
    return e;
  if (o.embedWeights && in.tokenizer.empty())
    return fileError(o.model, "--embed-weights needs a tokenizer to link in, and the model has none (pass "
                              "--tokenizer FILE): the library answers prompts without reading files");
  std::sort(in.metadata.begin(), in.metadata.end());
  for (const std::string &f : hashed) {
    auto h = hashFile(f);
    if (!h)
      return h.takeError();
    in.sourceHashes.push_back({llvm::sys::path::filename(f).str(), hex64(*h)});
  }

  mlir::DialectRegistry registry;
  registerSaguaroDialects(registry);
  mlir::MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  if (!isWeightBits(o.bits))
    return fileError(o.model, llvm::Twine("--bits must be ") + kWeightBitsList + ", got " + llvm::Twine(o.bits));
  std::vector<std::pair<std::string, int64_t>> policy;
  if (!o.policy.empty() && o.bpw > 0)
    return fileError(o.policy, "--policy and --bpw are alternatives; pass one");
  if (!o.calibration.empty())
    if (auto e = checkCalibrationText(o.calibration))
      return e;
  if (!o.policy.empty())
    if (auto e = readPolicy(o.policy, model, policy))
      return e;
  if (o.bpw > 0) {
    llvm::errs() << "saguaro: measuring per-tensor sensitivity for --bpw " << o.bpw << "\n";
    if (auto e = allocateBits(o.model, o.tokenizer, o.calibration, o.bpw, policy))
      return e;
  }
  auto module = buildGraph(ctx, d, chunk);
  if (!policy.empty()) {
    mlir::Builder b(&ctx);
    mlir::NamedAttrList entries;
    for (auto &[name, bits] : policy)
      entries.set(name, b.getI64IntegerAttr(bits));
    (*module)->setAttr("cq.policy", entries.getDictionary(&ctx));
  }
  std::string diagnostics;
  {
    mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &diag) {
      llvm::raw_string_ostream(diagnostics) << diag << "\n";
      return mlir::success();
    });
    mlir::PassManager pm(&ctx);
    if (o.cqActivations != "f32" && o.cqActivations != "i8")
      return fileError(o.model, "--cq-activations must be f32 or i8, got '" + o.cqActivations + "'");
    if (std::string problem = kvCacheProblem(o.kvCache); !problem.empty())
      return fileError(o.model, problem);
    if (auto flags = targetFlags(o.target); !flags)
      return fileError(o.model, llvm::toString(flags.takeError()));
    buildCompilePipeline(pm, CompilePipelineOptions{o.bits, o.calibrationTaps, o.cqActivations, o.kvCache, o.target});
    if (mlir::failed(mlir::verify(*module)) || mlir::failed(pm.run(*module)))
      return fileError(o.model, "compilation failed: " + diagnostics);
  }
  HessianMap hessians;
  // Hessians feed only the codebook (1-4 bit) weights' error feedback; binary16 weights need none.
  auto quantized = (*module)->getAttrOfType<mlir::DictionaryAttr>("cq.quantized");
  bool codebookWeights = quantized && llvm::any_of(quantized, [](mlir::NamedAttribute e) {
                           return mlir::cast<mlir::IntegerAttr>(e.getValue()).getInt() <= 4;
                         });
  if (!o.calibration.empty() && codebookWeights)
    if (auto e = measureHessians(o, o.calibration, hessians))
      return e;
  if (auto e = quantizeWeights(*module, model, hessians, o.damp))
    return e;
  return o.embedWeights ? emitFirmwareBundle(*module, in, outDir) : emitBundle(*module, in, outDir);
}
