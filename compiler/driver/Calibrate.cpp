//===- Calibrate.cpp - measure XᵀX of every weight's input on calibration text ---------===//
//
// GPTQ-style error feedback needs, per weight matrix, H = XᵀX of its input activations on
// representative text. The compiler's only forward pass is the program it generates, so a
// calibration build of the model taps every matrix input (kern-insert-calibration-taps), its
// program (`saguaro_bundle --gram`) sums the outer products, and this file maps tap ids back
// to weight names through the build's manifest.
//
//===------------------------------------------------------------------------------------===//
#include "compiler/driver/Calibrate.h"

#include "compiler/driver/BundleCache.h"
#include "compiler/driver/ProgramRun.h"
#include "compiler/import/ModelDesc.h"
#include "compiler/quantize/quantize.h"
#include "saguaro/blob.h"
#include "saguaro/tokenizer.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace saguaro;

llvm::Error saguaro::checkCalibrationText(const std::string &path) {
  auto file = llvm::MemoryBuffer::getFile(path);
  if (!file)
    return fileError(path, "cannot read the calibration text: " + file.getError().message());
  if ((*file)->getBuffer().trim().empty())
    return fileError(path, "the calibration text is empty");
  return llvm::Error::success();
}

namespace {
/// The float32 calibration build of a model: its directory, built program, sequence length and the
/// manifest's `taps` (which weights read each tap id).
struct CalibrationBuild {
  std::string bundle, exe;
  int64_t maxSeq = 256;
  llvm::json::Array taps;
};

llvm::Error calibrationBuild(const CompileOptions &model, CalibrationBuild &build) {
  CompileOptions co;
  co.model = model.model;
  co.tokenizer = model.tokenizer;
  co.calibrationTaps = true;
  co.kvCache = "f32"; // the float32 model's activations
  auto dir = cachedBundle(co);
  if (!dir)
    return dir.takeError();
  auto program = buildBundle(*dir);
  if (!program)
    return program.takeError();
  build.bundle = *dir, build.exe = *program;
  auto root = readBundleManifest(*dir);
  if (!root)
    return root.takeError();
  llvm::json::Array *taps = root->getArray("taps");
  if (!taps)
    return fileError(*dir + "/manifest.json", "the calibration build lists no taps");
  build.taps = std::move(*taps);
  if (const llvm::json::Object *desc = root->getObject("model"))
    build.maxSeq = desc->getInteger("max_seq").value_or(build.maxSeq);
  return llvm::Error::success();
}

/// Runs the calibration program over the sequences of `idsPath` (one per line) and maps its Gram
/// matrices to weight names through the build's taps; `blamed` is the file errors name. Every matrix
/// is checked once here, so its users may take it as a valid Hessian of its weights' input width.
llvm::Error runGram(const CalibrationBuild &build, const std::string &idsPath, const std::string &blamed,
                    HessianMap &hessians) {
  llvm::SmallString<128> work;
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory("saguaro-gram", work))
    return fileError("saguaro-gram", "cannot create a work directory: " + ec.message());
  std::string dir = work.str().str(), log = dir + "/gram.log";
  auto cleanup = llvm::make_scope_exit([&] { llvm::sys::fs::remove_directories(dir); });
  std::string blob = build.bundle + "/weights.sgw";
  if (runRedirected(build.exe, {build.exe, blob, "--gram", idsPath, "-o", dir}, std::nullopt, log) != 0) {
    // The program's own one-line error already names the file at fault.
    std::string text = readLog(log);
    llvm::StringRef said = llvm::StringRef(text).split('\n').first;
    if (said.consume_front("saguaro: "))
      return llvm::createStringError(llvm::inconvertibleErrorCode(), said.str());
    return fileError(blamed, "the calibration program failed: " + said);
  }
  for (const llvm::json::Value &entry : build.taps) {
    const llvm::json::Object *tap = entry.getAsObject();
    if (tap->getString("kind").value_or("weights") != "weights")
      continue; // a probe's hidden tap has no Gram matrix
    int64_t id = tap->getInteger("id").value_or(-1), cols = tap->getInteger("cols").value_or(0), rows = 0, k = 0;
    std::vector<float> gram;
    std::string path = dir + "/tap" + std::to_string(id) + ".npy";
    if (!readNpyF32(path, gram, rows, k) || rows != cols || k != cols)
      return fileError(path, "the calibration program wrote no " + std::to_string(cols) + "x" +
                                 std::to_string(cols) + " Gram matrix for tap " + std::to_string(id));
    std::string problem = quant::hessian_error(gram, cols);
    if (!problem.empty())
      return fileError(path, "not a usable Hessian: " + problem);
    for (const llvm::json::Value &w : *tap->getArray("weights"))
      hessians[w.getAsString()->str()] = gram;
  }
  return llvm::Error::success();
}
} // namespace

llvm::Error saguaro::measureHessiansOnIds(const CompileOptions &model, const std::string &idsPath,
                                          HessianMap &hessians) {
  CalibrationBuild build;
  if (auto e = calibrationBuild(model, build))
    return e;
  return runGram(build, idsPath, idsPath, hessians);
}

llvm::Error saguaro::measureHessians(const CompileOptions &model, const std::string &calibrationText,
                                     HessianMap &hessians, int maxTokens) {
  if (auto e = checkCalibrationText(calibrationText))
    return e;
  CalibrationBuild build;
  if (auto e = calibrationBuild(model, build))
    return e;

  // Token ids of the text, in windows of up to 256 tokens (the sequence length if shorter), one per line.
  std::string err, blobPath = build.bundle + "/weights.sgw";
  std::unique_ptr<Blob> blob = Blob::open(blobPath, &err);
  if (!blob)
    return fileError(blobPath, err);
  std::unique_ptr<Tokenizer> tok = make_tokenizer(*blob, &err);
  if (!tok)
    return fileError(model.model, "calibration needs a tokenizer: " + err);
  auto text = llvm::MemoryBuffer::getFile(calibrationText);
  std::vector<int32_t> ids;
  if (!text || !tok->encode((*text)->getBuffer(), tok->add_bos, &ids, &err))
    return fileError(calibrationText, err.empty() ? "cannot read the calibration text" : err);
  if (static_cast<int>(ids.size()) > maxTokens)
    ids.resize(maxTokens);
  size_t window = static_cast<size_t>(std::min<int64_t>(256, build.maxSeq));

  llvm::SmallString<128> idsPath;
  int fd = -1;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile("saguaro-calibration", "txt", fd, idsPath))
    return fileError("saguaro-calibration", "cannot create a temporary file: " + ec.message());
  auto cleanup = llvm::make_scope_exit([&] { llvm::sys::fs::remove(idsPath); });
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    for (size_t at = 0; at < ids.size(); at += window) {
      for (size_t i = at; i < std::min(ids.size(), at + window); ++i)
        os << ids[i] << ' ';
      os << '\n';
    }
  }
  llvm::errs() << "saguaro: calibrating on " << ids.size() << " tokens of " << calibrationText << "\n";
  return runGram(build, idsPath.str().str(), calibrationText, hessians);
}
