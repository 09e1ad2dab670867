//===- EmitBundle.cpp - write a compiled bundle to disk --------------------------------===//
//
// The bundle is everything a user ships: generated C++ with constant shapes, the checksummed
// weight blob, a CMake project that builds them against a private copy of runtime-min and
// the kernels, and manifest.json stating the memory plan for people to read. Each file comes
// from one part (BundleParts.h); this file puts them in a directory, all or nothing.
//
//===------------------------------------------------------------------------------------===//
#include "codegen/emit/EmitBundle.h"

#include "codegen/emit/BundleParts.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace saguaro;
using namespace saguaro::bundle;

namespace {
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

/// Copies the runtime and the kernels (and with `in.handoff` the handoff library) from the checkout into the bundle
/// directory `dir`.
llvm::Error copyRuntime(const BundleInputs &in, llvm::StringRef dir) {
  llvm::StringRef source = in.runtimeSourceDir;
  const bool handoff = in.handoff;
  using Copy = std::pair<const char *, const char *>;
  std::vector<Copy> trees = {{"runtime-min/include", "saguaro/runtime-min/include"},
                             {"runtime-min/src", "saguaro/runtime-min/src"},
                             {"codegen/kernels/include", "saguaro/kernels/include"}};
  std::vector<Copy> files = {{"runtime-min/CMakeLists.txt", "saguaro/runtime-min/CMakeLists.txt"},
                             {"codegen/kernels/CMakeLists.txt", "saguaro/kernels/CMakeLists.txt"}};
  if (handoff) {
    trees.insert(trees.end(), {{"handoff/include", "saguaro/handoff/include"}, {"handoff/src", "saguaro/handoff/src"}});
    files.push_back({"handoff/bundle.cmake", "saguaro/handoff/CMakeLists.txt"}); // without the chat server
  }
  if (in.model.vision) { // the program reads images
    trees.insert(trees.end(), {{"runtime-min/frontends/image/include", "saguaro/image/include"},
                               {"runtime-min/frontends/image/src", "saguaro/image/src"}});
    files.push_back({"runtime-min/frontends/image/CMakeLists.txt", "saguaro/image/CMakeLists.txt"});
  }
  if (in.model.audio) { // the runtime reads WAV clips and streams PCM into the audio tower
    trees.insert(trees.end(), {{"runtime-min/frontends/audio/include", "saguaro/audio/include"},
                               {"runtime-min/frontends/audio/src", "saguaro/audio/src"}});
    files.push_back({"runtime-min/frontends/audio/CMakeLists.txt", "saguaro/audio/CMakeLists.txt"});
  }
  for (auto [from, to] : trees) {
    llvm::SmallString<256> src(source), dst(dir);
    llvm::sys::path::append(src, from);
    llvm::sys::path::append(dst, to);
    if (auto e = copyTree(src, dst))
      return e;
  }
  for (auto [from, to] : files) {
    llvm::SmallString<256> src(source), dst(dir);
    llvm::sys::path::append(src, from);
    llvm::sys::path::append(dst, to);
    if (std::error_code ec = llvm::sys::fs::copy_file(src, dst))
      return fileError(src, "cannot copy: " + ec.message());
  }
  llvm::SmallString<256> header(dir);
  llvm::sys::path::append(header, "saguaro/runtime-min/src/weights_generated.h");
  if (std::error_code ec = llvm::sys::fs::copy_file(in.blobSchemaHeader, header))
    return fileError(in.blobSchemaHeader, "cannot copy: " + ec.message());
  // The chat server (cpp-httplib) belongs to `saguaro serve`, not to a device app: its files are left out.
  if (handoff)
    for (const char *server : {"chat_server.cpp", "bounded_http_server.cpp", "bounded_http_server.h", "turn_queue.cpp",
                               "turn_queue.h"})
      llvm::sys::fs::remove(dir + "/saguaro/handoff/src/" + server);
  return llvm::Error::success();
}

/// Writes every file of the bundle into the empty directory `dir`; errors about the bundle name `outDir`.
llvm::Error writeBundle(ModuleOp module, const ModuleFacts &facts, const BundleInputs &in, llvm::StringRef flags,
                        llvm::StringRef dir, llvm::StringRef outDir) {
  auto blob = writeWeights((dir + "/weights.sgw").str(), outDir, facts, in);
  if (!blob)
    return blob.takeError();
  auto cpp = modelSource(module, facts, in);
  if (!cpp)
    return cpp.takeError();
  std::string manifestText;
  llvm::raw_string_ostream(manifestText) << llvm::formatv("{0:2}", manifest(module, facts, in, *blob)) << "\n";
  std::vector<std::pair<std::string, std::string>> files = {
      {"model.cpp", *cpp}, {"model.h", modelHeader().str()},
      {"main.cpp", mainSource().str()},
      {"CMakeLists.txt", cmakeLists(flags, in)},
      {"manifest.json", manifestText}};
  if (in.embedWeights)
    for (auto &file : embeddedLibraryFiles(in.threadPool))
      files.push_back(std::move(file));
  for (const auto &[name, text] : files)
    if (auto e = writeFile(dir, name, text))
      return e;
  return copyRuntime(in, dir);
}
} // namespace

llvm::Error saguaro::emitBundle(ModuleOp module, const BundleInputs &in, llvm::StringRef outDir,
                                const std::function<llvm::Error(const std::string &dir)> &finish) {
  auto flags = targetFlags(in.target);
  if (!flags)
    return flags.takeError();
  const ModuleFacts facts = ModuleFacts::of(module);
  for (const std::string &name : facts.slots)
    if (!in.tensor(name))
      return fileError(outDir, "the module refers to weight '" + name + "', which the model does not have");

  // Write everything next to the destination, then swap it in.
  std::string tmp = (outDir + ".tmp").str();
  llvm::sys::fs::remove_directories(tmp);
  if (std::error_code ec = llvm::sys::fs::create_directories(tmp))
    return fileError(tmp, "cannot create: " + ec.message());
  llvm::Error written = writeBundle(module, facts, in, *flags, tmp, outDir);
  if (!written && finish)
    written = finish(tmp);
  if (written) {
    llvm::sys::fs::remove_directories(tmp);
    return written;
  }
  llvm::sys::fs::remove_directories(outDir);
  if (std::error_code ec = llvm::sys::fs::rename(tmp, outDir)) {
    llvm::sys::fs::remove_directories(tmp);
    return fileError(outDir, "cannot move the bundle into place: " + ec.message());
  }
  return llvm::Error::success();
}
