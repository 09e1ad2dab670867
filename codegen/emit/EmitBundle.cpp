//===- EmitBundle.cpp - write a compiled bundle to disk --------------------------------===//
//
// The bundle is everything a user ships: generated C++ with constant shapes, the checksummed
// weight blob, a CMake project that builds them against a private copy of runtime-min and
// the kernels, and manifest.json stating the memory plan for people to read.
//
//===------------------------------------------------------------------------------------===//
#include "codegen/emit/EmitBundle.h"

#include "blob_writer.h"
#include "saguaro/kernels/cpu_features.h"
#include "saguaro/kernels/cq_format.h"
#include "saguaro/kernels/dense_layout.h"
#include "saguaro/xxh64.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/IR/Builders.h"
#include "mlir/Target/Cpp/CppEmitter.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <optional>

using namespace mlir;
using namespace saguaro;

namespace {
constexpr const char *kCompilerVersion = "saguaro 0.1.0";

llvm::Error writeFile(llvm::StringRef dir, llvm::StringRef name, llvm::StringRef text) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, name);
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return fileError(path, "cannot write: " + ec.message());
  os << text;
  return llvm::Error::success();
}

/// Copies the files under `from` (recursively) to `to`, in sorted order.
llvm::Error copyTree(llvm::StringRef from, llvm::StringRef to) {
  std::error_code ec;
  std::vector<std::string> files;
  for (llvm::sys::fs::recursive_directory_iterator it(from, ec), end; it != end && !ec; it.increment(ec))
    if (it->type() == llvm::sys::fs::file_type::regular_file)
      files.push_back(it->path());
  if (ec)
    return fileError(from, "cannot list: " + ec.message());
  std::sort(files.begin(), files.end());
  for (const std::string &f : files) {
    llvm::SmallString<256> dest(to);
    llvm::sys::path::append(dest, llvm::StringRef(f).drop_front(from.size()));
    if ((ec = llvm::sys::fs::create_directories(llvm::sys::path::parent_path(dest))) ||
        (ec = llvm::sys::fs::copy_file(f, dest)))
      return fileError(dest, "cannot copy: " + ec.message());
  }
  return llvm::Error::success();
}

std::string cString(llvm::StringRef s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

const char *dtypeName(StoredType t) {
  return t == StoredType::F32 ? "F32" : t == StoredType::F16 ? "F16" : "U8";
}

/// How a tensor is stored, for the manifest: "none", or "cq<bits>-g<group>" for codes and norms.
std::string quantizationOf(ModuleOp m, llvm::StringRef name) {
  auto quantized = m->getAttrOfType<DictionaryAttr>("cq.quantized");
  for (llvm::StringRef suffix : {".codes", ".norms"})
    if (quantized && name.ends_with(suffix))
      if (auto bits = quantized.getAs<IntegerAttr>(name.drop_back(suffix.size())))
        return "cq" + std::to_string(bits.getInt());
  return name.starts_with("cq.codebook.") ? "codebook" : "none";
}

/// A CQ weight that kern-pack-weights rearranged for the target.
struct PackedWeight {
  std::string layout;
  int64_t bits = 0, k = 0, rows = 0;
};

/// What a kern.tap id carries: the inputs of weights (calibration builds, kern-insert-calibration-taps) or the
/// hidden state after `layer` decoder layers (llm.hidden_tap, the probe's input).
struct Tap {
  std::string kind;
  int64_t cols = 0;
  std::optional<int64_t> layer;
  std::optional<std::vector<std::string>> weights;
};

/// The module attributes the bundle writer reads, parsed once.
struct ModuleFacts {
  std::map<std::string, PackedWeight> packed; // kern.packed by weight name
  std::vector<Tap> taps;                      // kern.taps, by id
  int64_t arenaBytes = 0, kvBytes = 0;        // kern.arena_bytes, kern.kv_bytes
  std::string kvType = "f32";                 // kern.kv_type: the cache's element type (f32 or f16)

  /// (layer, tap id) of the module's llm.hidden_tap, or (0, 0) when it has none.
  std::pair<int64_t, int64_t> hiddenTap() const {
    for (auto [id, tap] : llvm::enumerate(taps))
      if (tap.kind == "hidden")
        return {tap.layer.value_or(0), static_cast<int64_t>(id)};
    return {0, 0};
  }

  static ModuleFacts of(ModuleOp m) {
    ModuleFacts f;
    if (auto list = m->getAttrOfType<ArrayAttr>("kern.packed"))
      for (auto d : list.getAsRange<DictionaryAttr>())
        f.packed[d.getAs<StringAttr>("weight").str()] =
            PackedWeight{d.getAs<StringAttr>("layout").str(), d.getAs<IntegerAttr>("bits").getInt(),
                         d.getAs<IntegerAttr>("k").getInt(), d.getAs<IntegerAttr>("rows").getInt()};
    if (auto list = m->getAttrOfType<ArrayAttr>("kern.taps"))
      for (auto d : list.getAsRange<DictionaryAttr>()) {
        Tap t{d.getAs<StringAttr>("kind").getValue().str(), d.getAs<IntegerAttr>("cols").getInt(), std::nullopt, {}};
        if (auto layer = d.getAs<IntegerAttr>("layer"))
          t.layer = layer.getInt();
        if (auto names = d.getAs<ArrayAttr>("weights")) {
          t.weights.emplace();
          for (auto w : names.getAsValueRange<StringAttr>())
            t.weights->push_back(w.str());
        }
        f.taps.push_back(std::move(t));
      }
    auto integer = [&](llvm::StringRef name) {
      auto a = m->getAttrOfType<IntegerAttr>(name);
      return a ? a.getInt() : int64_t{0};
    };
    f.arenaBytes = integer("kern.arena_bytes");
    f.kvBytes = integer("kern.kv_bytes");
    if (auto kv = m->getAttrOfType<StringAttr>("kern.kv_type"))
      f.kvType = kv.getValue().str();
    return f;
  }
};

/// The layout a blob tensor is stored in: a packed CQ layout for the codes and norms of a packed CQ weight, a packed
/// dense layout for a packed dense weight, else "row-major".
std::string layoutOf(const std::map<std::string, PackedWeight> &packed, llvm::StringRef name) {
  if (auto it = packed.find(name.str()); it != packed.end())
    return it->second.layout;
  for (llvm::StringRef suffix : {".codes", ".norms"})
    if (name.ends_with(suffix))
      if (auto it = packed.find(name.drop_back(suffix.size()).str()); it != packed.end())
        return it->second.layout;
  return "row-major";
}

/// The data part of model.cpp: helpers the EmitC code calls, and the weight table.
std::string specSource(const ModuleFacts &facts, const BundleInputs &in, const std::vector<std::string> &slots) {
  const ModelDesc &d = in.model->desc;
  const char *kvElement = facts.kvType == "f16" ? "uint16_t" : "float"; // binary16 bits, or floats
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "// Generated by " << kCompilerVersion << " from " << d.name << " (" << d.architecture
     << ", target " << in.target << "). Do not edit.\n"
     << (d.probe.h > 0 ? "void saguaro_model_probe(const saguaro::ModelState&, float*, int32_t, float*);\n" : "")
     << "namespace {\n"
     << "inline float* arena_of(const saguaro::ModelState& s) { return s.arena; }\n"
     << "inline " << kvElement << "* kv_of(const saguaro::ModelState& s) { return static_cast<" << kvElement
     << "*>(s.kv); }\n"
     << "inline const saguaro::kernels::Parallel* parallel_of(const saguaro::ModelState& s) {\n"
     << "  return static_cast<const saguaro::kernels::Parallel*>(s.parallel);\n"
     << "}\n"
     << "inline const void* weight_of(const saguaro::ModelState& s, int slot) { return s.w[slot]; }\n"
     << "inline void tap(const saguaro::ModelState& s, int32_t id, int32_t rows, int32_t cols, const float* x) {\n"
     << "  if (s.tap) s.tap(s.tap_ctx, id, rows, cols, x);\n"
     << "}\n\n"
     << "const saguaro::WeightSpec kWeights[] = {\n";
  const std::pair<int64_t, int64_t> hiddenTap = facts.hiddenTap();
  for (const std::string &name : slots) {
    const StoredTensor *t = in.model->weights.find(name);
    os << "    {" << cString(name) << ", saguaro::DType::" << dtypeName(t->type) << ", " << t->bytes() << "ull, "
       << cString(layoutOf(facts.packed, name)) << "},\n";
  }
  os << "};\n\n";
  if (!d.layerAttention.empty()) { // each layer's attention window: what a decode step reads of the KV cache
    os << "const int32_t kWindows[] = {";
    for (auto [l, a] : llvm::enumerate(d.layerAttention))
      os << (l ? ", " : "") << a.window;
    os << "};\n\n";
  }
  os << "const saguaro::ModelSpec kSpec = {" << cString(d.name) << ", " << d.vocab << ", " << d.dim << ", "
     << d.layers << ", " << d.maxSeq << ", " << in.prefillChunk << ", " << facts.arenaBytes << "ull, "
     << facts.kvBytes << "ull, " << slots.size() << ", kWeights, " << hiddenTap.first
     << ", " << hiddenTap.second << ", " << (d.probe.h > 0 ? "saguaro_model_probe" : "nullptr")
     << (d.layerAttention.empty() ? ", nullptr" : ", kWindows") << ", " << cString(in.target) << "};\n"
     << "} // namespace\n\n"
     << "const saguaro::ModelSpec& saguaro_model_spec() { return kSpec; }\n";
  return s;
}

/// model.cpp: the spec table, then the EmitC entry points.
llvm::Expected<std::string> modelSource(ModuleOp m, const ModuleFacts &facts, const BundleInputs &in,
                                        const std::vector<std::string> &slots) {
  OpBuilder b(m.getContext());
  b.setInsertionPointToStart(m.getBody());
  b.create<emitc::IncludeOp>(m.getLoc(), "model.h", false);
  b.create<emitc::VerbatimOp>(m.getLoc(), specSource(facts, in, slots));
  std::string cpp;
  llvm::raw_string_ostream os(cpp);
  if (failed(emitc::translateToCpp(m, os)))
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "EmitC translation to C++ failed");
  return cpp;
}

/// With --handoff the runtime links the bundle's copy of handoff/ (saguaro/handoff/CMakeLists.txt, which is
/// handoff/bundle.cmake and fails clearly without libcurl); SAGUARO_WITH_HANDOFF switches saguaro_complete to the
/// hybrid answer (runtime-min/src/capi.cpp).
const char *kHandoffCMake = R"(
# Compiled with --handoff: saguaro_complete applies the cloud handoff policy (docs/handoff.md).
add_subdirectory(saguaro/handoff handoff)
target_link_libraries(saguaro_runtime PRIVATE saguaro_handoff)
target_compile_definitions(saguaro_runtime PRIVATE SAGUARO_WITH_HANDOFF=1)
)";

std::string cmakeLists(llvm::StringRef flags, bool handoff) {
  std::string s = R"(# Generated by saguaro: builds this bundle on its own.
cmake_minimum_required(VERSION 3.16)
project(saguaro_bundle CXX)
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE Release)
endif()
# Every bundle for a target compiles the same runtime sources: with ccache installed, a bundle built after another
# reuses those objects (CCACHE_BASEDIR makes the paths inside this directory relative, so they match). Only when a
# trial compile through it works: ccache fails every compile when it cannot create its cache directory.
option(SAGUARO_CCACHE "Compile through ccache when it is installed" ON)
find_program(SAGUARO_CCACHE_PROGRAM ccache)
if(SAGUARO_CCACHE AND SAGUARO_CCACHE_PROGRAM AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  execute_process(COMMAND ${SAGUARO_CCACHE_PROGRAM} ${CMAKE_CXX_COMPILER} -x c++ -c /dev/null
                          -o ${CMAKE_CURRENT_BINARY_DIR}/ccache_trial.o
                  RESULT_VARIABLE SAGUARO_CCACHE_TRIAL OUTPUT_QUIET ERROR_QUIET)
  if(SAGUARO_CCACHE_TRIAL EQUAL 0)
    set(CMAKE_CXX_COMPILER_LAUNCHER ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${CMAKE_CURRENT_SOURCE_DIR}
        ${SAGUARO_CCACHE_PROGRAM})
  endif()
endif()
add_subdirectory(saguaro/kernels kernels)
add_subdirectory(saguaro/runtime-min runtime)

# The generated model (straight-line kernel calls with constant shapes) and the example program.
add_executable(saguaro_bundle main.cpp model.cpp)
target_include_directories(saguaro_bundle PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(saguaro_bundle PRIVATE saguaro_kernels saguaro_runtime)
set_source_files_properties(model.cpp PROPERTIES COMPILE_OPTIONS "@FLAGS@")
)";
  size_t at = s.find("@FLAGS@");
  std::string options = "-O2";
  for (llvm::StringRef rest = flags; !rest.empty();) {
    auto [flag, tail] = rest.split(' ');
    options += ";" + flag.str();
    rest = tail;
  }
  s.replace(at, 7, options);
  return handoff ? s + kHandoffCMake : s;
}

const char *kModelHeader = R"(// Generated by saguaro. The model ABI (saguaro/model_abi.h) and the kernels it calls.
#pragma once
#include "saguaro/kernels/kernels.h"
#include "saguaro/model_abi.h"
)";

const char *kMainSource = R"(// Generated by saguaro: the example program (prompt in, text out). See docs/runtime.md.
#include "saguaro/bundle_main.h"

int main(int argc, char** argv) { return saguaro::bundle_main(argc, argv); }
)";

llvm::json::Value manifest(ModuleOp m, const ModuleFacts &facts, const BundleInputs &in,
                           const std::vector<std::string> &slots, uint64_t blobBytes) {
  const ModelDesc &d = in.model->desc;
  llvm::json::Array tensors;
  for (const std::string &name : slots) {
    const StoredTensor *t = in.model->weights.find(name);
    llvm::json::Array shape;
    for (int64_t dim : t->shape)
      shape.push_back(dim);
    tensors.push_back(llvm::json::Object{{"name", name},
                                         {"shape", std::move(shape)},
                                         {"dtype", llvm::StringRef(dtypeName(t->type)).lower()},
                                         {"quantization", quantizationOf(m, name)},
                                         {"layout", layoutOf(facts.packed, name)},
                                         {"bytes", static_cast<int64_t>(t->bytes())}});
  }
  // Bits per stored weight of every quantized matrix: (codes + norms) bytes * 8 / (N * K).
  llvm::json::Array quantized;
  if (auto q = m->getAttrOfType<DictionaryAttr>("cq.quantized"))
    for (NamedAttribute entry : q) {
      std::string name = entry.getName().str();
      const StoredTensor *w = in.model->weights.find(name), *codes = in.model->weights.find(name + ".codes"),
                         *norms = in.model->weights.find(name + ".norms");
      if (!w || !codes || !norms || w->shape.size() != 2)
        continue;
      double weights = static_cast<double>(w->shape[0]) * static_cast<double>(w->shape[1]);
      quantized.push_back(llvm::json::Object{
          {"name", name},
          {"bits", cast<IntegerAttr>(entry.getValue()).getInt()},
          {"bits_per_weight", 8.0 * static_cast<double>(codes->bytes() + norms->bytes()) / weights}});
    }
  llvm::json::Array sources;
  for (const auto &[file, hash] : in.sourceHashes)
    sources.push_back(llvm::json::Object{{"file", file}, {"xxh64", hash}});
  int64_t arena = facts.arenaBytes, kv = facts.kvBytes;
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
  llvm::json::Array taps;
  for (auto [id, tap] : llvm::enumerate(facts.taps)) {
    llvm::json::Object entry{{"id", static_cast<int64_t>(id)}, {"cols", tap.cols}, {"kind", tap.kind}};
    if (tap.layer)
      entry["layer"] = *tap.layer;
    if (tap.weights)
      entry["weights"] = llvm::json::Array(*tap.weights);
    taps.push_back(std::move(entry));
  }
  // What the CPU must have beyond its architecture's baseline (the bundle refuses a CPU without it at open).
  llvm::json::Array cpuExtensions;
  saguaro::kernels::for_each_extension(in.target.c_str(),
                                       [&](const std::string &extension) { cpuExtensions.push_back(extension); });
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
      {"tensors", std::move(tensors)},
      {"quantized", std::move(quantized)},
      {"memory", llvm::json::Object{{"arena_bytes", arena},
                                    {"kv_cache_bytes", kv},
                                    {"kv_cache", facts.kvType},
                                    {"weights_blob_bytes", static_cast<int64_t>(blobBytes)},
                                    {"planned_peak_bytes", arena + kv + static_cast<int64_t>(blobBytes)},
                                    {"plan", std::move(plan)}}}};
  if (!taps.empty())
    manifest["taps"] = std::move(taps);
  return manifest;
}
} // namespace

llvm::Expected<std::string> saguaro::targetFlags(llvm::StringRef target) {
  if (target == "generic")
    return std::string();
  if (target == "x86-avx2")
    return std::string("-mavx2 -mfma -mf16c");
  if (target == "x86-avx512vnni") // AVX-512 VNNI and BW on ymm: -mavx512vl brings AVX512F with it
    return std::string("-mavx2 -mfma -mf16c -mavx512vnni -mavx512vl -mavx512bw");
  if (target == "aarch64-neon")
    return std::string("-march=armv8-a");
  if (target == "aarch64-dotprod")
    return std::string("-march=armv8.2-a+dotprod");
  if (target == "aarch64-i8mm")
    return std::string("-march=armv8.2-a+dotprod+i8mm");
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "unknown target '" + target.str() +
                                     "' (generic, x86-avx2, x86-avx512vnni, aarch64-neon, aarch64-dotprod, aarch64-i8mm)");
}

llvm::Error saguaro::emitBundle(ModuleOp module, const BundleInputs &in, llvm::StringRef outDir) {
  auto flags = targetFlags(in.target);
  if (!flags)
    return flags.takeError();
  std::vector<std::string> slots;
  if (auto names = module->getAttrOfType<ArrayAttr>("saguaro.weight_slots"))
    for (Attribute a : names)
      slots.push_back(cast<StringAttr>(a).str());
  for (const std::string &name : slots)
    if (!in.model->weights.find(name))
      return fileError(outDir, "the module refers to weight '" + name + "', which the model does not have");

  // Write everything next to the destination, then swap it in.
  std::string tmp = (outDir + ".tmp").str();
  llvm::sys::fs::remove_directories(tmp);
  if (std::error_code ec = llvm::sys::fs::create_directories(tmp))
    return fileError(tmp, "cannot create: " + ec.message());
  auto fail = [&](llvm::Error e) {
    llvm::sys::fs::remove_directories(tmp);
    return e;
  };

  // Codes and norms of packed CQ weights (cq::pack_tensor) and packed dense weights (dense::pack) are rearranged
  // here; everything else is stored as imported.
  const ModuleFacts facts = ModuleFacts::of(module);
  std::map<std::string, std::vector<uint8_t>> repacked;
  for (const auto &[name, p] : facts.packed) {
    if (p.layout == "dense-panel3") {
      const StoredTensor *t = in.model->weights.find(name);
      const size_t element = static_cast<size_t>(p.bits / 8);
      if (!t || t->shape.size() != 2 || t->shape[0] != p.rows || t->shape[1] != p.k ||
          t->bytes() != static_cast<size_t>(p.rows * p.k) * element)
        return fail(fileError(outDir, "packed weight '" + name + "' does not match its tensor"));
      std::vector<uint8_t> &d = repacked[name];
      d.resize(t->bytes());
      saguaro::kernels::dense::pack(saguaro::kernels::dense::kPanel3, p.rows, p.k, element, t->bytesData(), d.data());
      continue;
    }
    const StoredTensor *codes = in.model->weights.find(name + ".codes"), *norms = in.model->weights.find(name + ".norms");
    if (!codes || !norms || codes->shape.size() != 2 || codes->shape[0] != p.rows ||
        codes->bytes() != static_cast<size_t>(p.rows) * saguaro::kernels::cq::row_code_bytes(p.k, p.bits))
      return fail(fileError(outDir, "packed weight '" + name + "' does not match its codes and norms"));
    std::vector<uint8_t> &c = repacked[name + ".codes"], &nrm = repacked[name + ".norms"];
    c.resize(codes->bytes());
    nrm.resize(norms->bytes());
    saguaro::kernels::cq::pack_tensor(static_cast<const uint8_t *>(codes->bytesData()),
                                      static_cast<const uint16_t *>(norms->bytesData()), p.rows,
                                      static_cast<int>(p.k), static_cast<int>(p.bits),
                                      p.layout == "cq-planar-panel8" ? saguaro::kernels::cq::kLayoutPlanarPanel8
                                                                     : saguaro::kernels::cq::kLayoutLsb,
                                      c.data(), reinterpret_cast<uint16_t *>(nrm.data()));
  }
  std::vector<BlobTensor> tensors;
  for (const std::string &name : slots) {
    const StoredTensor *t = in.model->weights.find(name);
    auto it = repacked.find(name);
    const void *data = it == repacked.end() ? t->bytesData() : it->second.data();
    tensors.push_back(BlobTensor{name, "weight", layoutOf(facts.packed, name), static_cast<DType>(t->type), t->shape,
                                 data, t->bytes()});
  }
  if (!in.tokenizer.empty())
    tensors.push_back(BlobTensor{in.tokenizerTensor, "tokenizer", "row-major", DType::U8,
                                 {static_cast<int64_t>(in.tokenizer.size())}, in.tokenizer.data(),
                                 in.tokenizer.size()});
  if (!in.chatTemplate.empty())
    tensors.push_back(BlobTensor{"chat.template", "chat_template", "row-major", DType::U8,
                                 {static_cast<int64_t>(in.chatTemplate.size())}, in.chatTemplate.data(),
                                 in.chatTemplate.size()});
  std::string blobPath = tmp + "/weights.sgw", blobError;
  if (!write_blob(blobPath, tensors, in.metadata, &blobError))
    return fail(fileError(blobPath, blobError));
  uint64_t blobBytes = 0;
  llvm::sys::fs::file_size(blobPath, blobBytes);

  auto cpp = modelSource(module, facts, in, slots);
  if (!cpp)
    return fail(cpp.takeError());
  std::string manifestText;
  llvm::raw_string_ostream(manifestText) << llvm::formatv("{0:2}", manifest(module, facts, in, slots, blobBytes)) << "\n";
  for (auto [name, text] : std::vector<std::pair<const char *, std::string>>{
           {"model.cpp", *cpp}, {"model.h", kModelHeader}, {"main.cpp", kMainSource},
           {"CMakeLists.txt", cmakeLists(*flags, in.handoff)}, {"manifest.json", manifestText}})
    if (auto e = writeFile(tmp, name, text))
      return fail(std::move(e));
  using Copy = std::pair<const char *, const char *>;
  std::vector<Copy> trees = {{"runtime-min/include", "saguaro/runtime-min/include"},
                             {"runtime-min/src", "saguaro/runtime-min/src"},
                             {"codegen/kernels/include", "saguaro/kernels/include"}};
  std::vector<Copy> files = {{"runtime-min/CMakeLists.txt", "saguaro/runtime-min/CMakeLists.txt"},
                             {"codegen/kernels/CMakeLists.txt", "saguaro/kernels/CMakeLists.txt"}};
  if (in.handoff) {
    trees.insert(trees.end(), {{"handoff/include", "saguaro/handoff/include"}, {"handoff/src", "saguaro/handoff/src"}});
    files.push_back({"handoff/bundle.cmake", "saguaro/handoff/CMakeLists.txt"}); // without the chat server
  }
  for (auto [from, to] : trees) {
    llvm::SmallString<256> src(in.runtimeSourceDir), dst(tmp);
    llvm::sys::path::append(src, from);
    llvm::sys::path::append(dst, to);
    if (auto e = copyTree(src, dst))
      return fail(std::move(e));
  }
  for (auto [from, to] : files) {
    llvm::SmallString<256> src(in.runtimeSourceDir), dst(tmp);
    llvm::sys::path::append(src, from);
    llvm::sys::path::append(dst, to);
    if (std::error_code ec = llvm::sys::fs::copy_file(src, dst))
      return fail(fileError(src, "cannot copy: " + ec.message()));
  }
  // The chat server (cpp-httplib) belongs to `saguaro serve`, not to a device app.
  if (in.handoff)
    llvm::sys::fs::remove(tmp + "/saguaro/handoff/src/chat_server.cpp");

  llvm::sys::fs::remove_directories(outDir);
  if (std::error_code ec = llvm::sys::fs::rename(tmp, outDir))
    return fail(fileError(outDir, "cannot move the bundle into place: " + ec.message()));
  return llvm::Error::success();
}
