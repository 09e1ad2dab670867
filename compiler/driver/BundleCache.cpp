//===- BundleCache.cpp - compile into the cache, build bundles -------------------------===//
#include "compiler/driver/BundleCache.h"

#include "compiler/driver/ProgramRun.h"
#include "compiler/import/ModelDesc.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace saguaro;

llvm::Expected<llvm::json::Object> saguaro::readBundleManifest(const std::string &bundle) {
  std::string path = bundle + "/manifest.json";
  auto manifest = readJsonFile(path);
  if (!manifest)
    return manifest.takeError();
  llvm::json::Object *root = manifest->getAsObject();
  if (!root)
    return fileError(path, "not a JSON object");
  return std::move(*root);
}

bool saguaro::isBundle(const std::string &path) {
  llvm::SmallString<256> blob(path), cmake(path);
  llvm::sys::path::append(blob, "weights.sgw");
  llvm::sys::path::append(cmake, "CMakeLists.txt");
  return llvm::sys::fs::exists(blob) && llvm::sys::fs::exists(cmake);
}

std::string saguaro::cacheRoot() {
  if (const char *dir = std::getenv("SAGUARO_CACHE_DIR"))
    return dir;
  llvm::SmallString<256> p;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"))
    p = xdg;
  else if (const char *home = std::getenv("HOME"))
    (p = home), llvm::sys::path::append(p, ".cache");
  else
    p = "/tmp";
  llvm::sys::path::append(p, "saguaro");
  return p.str().str();
}

/// Runs a program quietly; on failure shows its output.
static llvm::Error runQuiet(llvm::ArrayRef<llvm::StringRef> args, llvm::StringRef logPath) {
  auto program = llvm::sys::findProgramByName(args[0]);
  if (!program)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), args[0].str() + " not found on PATH");
  std::string err;
  if (runRedirected(*program, args, std::nullopt, logPath, &err) != 0) {
    llvm::errs() << readLog(logPath) << "\n";
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "'" + llvm::join(args, " ") + "' failed" + (err.empty() ? "" : ": " + err));
  }
  return llvm::Error::success();
}

/// Builds a bundle's program (once) and returns its path.
llvm::Expected<std::string> saguaro::buildBundle(const std::string &bundle) {
  std::string build = bundle + "/build", exe = build + "/saguaro_bundle";
  if (llvm::sys::fs::exists(exe))
    return exe;
  std::string log = bundle + "/build.log";
  llvm::errs() << "saguaro: building " << bundle << "\n";
  if (auto e = runQuiet({"cmake", "-S", bundle, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"}, log))
    return std::move(e);
  if (auto e = runQuiet({"cmake", "--build", build}, log))
    return std::move(e);
  return exe;
}

llvm::Expected<std::string> saguaro::cachedBundle(const CompileOptions &o) {
  auto key = bundleKey(o);
  if (!key)
    return key.takeError();
  std::string dir = cacheRoot() + "/" + *key;
  if (!isBundle(dir)) {
    if (std::error_code ec = llvm::sys::fs::create_directories(cacheRoot()))
      return fileError(cacheRoot(), "cannot create the cache directory: " + ec.message());
    llvm::errs() << "saguaro: compiling " << o.model << " -> " << dir << "\n";
    if (auto e = compileBundle(o, dir))
      return std::move(e);
  }
  return dir;
}
