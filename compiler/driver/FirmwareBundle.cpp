//===- FirmwareBundle.cpp - a bundle with the firmware library built -------------------===//
//
// `saguaro compile --embed-weights` builds the bundle's libsaguaro_model.a right away (with the
// CMAKE_TOOLCHAIN_FILE of the environment, if any), so that the bundle holds the library a firmware
// project links, and so that manifest.json can say what it costs: code, read-only data and RAM,
// read from the sections of a program that links it (size_probe.c) and from the memory plan.
//
//===------------------------------------------------------------------------------------===//
#include "compiler/driver/FirmwareBundle.h"

#include "compiler/driver/BundleCache.h"
#include "compiler/import/ModelDesc.h"
#include "saguaro/kernels/targets.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace saguaro;

namespace {
const char *archName(kernels::TargetArch arch) {
  return arch == kernels::TargetArch::x86_64 ? "x86_64" : arch == kernels::TargetArch::aarch64 ? "aarch64" : "any";
}

/// Bytes of a linked program's allocated sections by what they hold.
struct SectionSizes {
  uint64_t code = 0;   // executable
  uint64_t rodata = 0; // read-only, not executable (the weights among them)
  uint64_t data = 0;   // writable, initialised from the image
  uint64_t bss = 0;    // writable, zero-filled at start (SHT_NOBITS)
};

llvm::Expected<SectionSizes> sectionSizes(const std::string &path) {
  auto binary = llvm::object::ObjectFile::createObjectFile(path);
  if (!binary)
    return fileError(path, "cannot read: " + llvm::toString(binary.takeError()));
  auto *elf = llvm::dyn_cast<llvm::object::ELFObjectFileBase>(binary->getBinary());
  if (!elf)
    return fileError(path, "not an ELF file");
  SectionSizes s;
  for (llvm::object::ELFSectionRef section : elf->sections()) {
    const uint64_t flags = section.getFlags(), bytes = section.getSize();
    if (!(flags & llvm::ELF::SHF_ALLOC))
      continue; // symbols, debug information: not loaded
    if (flags & llvm::ELF::SHF_EXECINSTR)
      s.code += bytes;
    else if (!(flags & llvm::ELF::SHF_WRITE))
      s.rodata += bytes;
    else if (section.getType() == llvm::ELF::SHT_NOBITS)
      s.bss += bytes;
    else
      s.data += bytes;
  }
  return s;
}

/// manifest.json's "firmware": the library and what a program linking it needs of code, read-only data and RAM.
llvm::json::Object firmwareSizes(const SectionSizes &s, const llvm::json::Object &manifest, uint64_t libraryBytes,
                                 bool threadPool) {
  const llvm::json::Object *memory = manifest.getObject("memory");
  const int64_t arena = memory->getInteger("arena_bytes").value_or(0),
                kv = memory->getInteger("kv_cache_bytes").value_or(0),
                weights = memory->getInteger("weights_blob_bytes").value_or(0);
  const auto n = [](uint64_t v) { return static_cast<int64_t>(v); };
  return llvm::json::Object{{"library", "libsaguaro_model.a"},
                            {"library_bytes", n(libraryBytes)},
                            {"thread_pool", threadPool},
                            {"measured_program", "size_probe.c"},
                            {"code_bytes", n(s.code)},
                            {"rodata_bytes", n(s.rodata)},
                            {"weights_bytes", weights},
                            {"data_bytes", n(s.data)},
                            {"bss_bytes", n(s.bss)},
                            {"arena_bytes", arena},
                            {"kv_cache_bytes", kv},
                            {"ram_bytes", n(s.data + s.bss) + arena + kv}};
}

/// Builds the library and the size probe in `dir`/build and adds the "firmware" sizes to `dir`/manifest.json; the
/// build tree is removed afterwards (the bundle's CMakeLists.txt builds it again anywhere).
llvm::Error buildLibrary(const std::string &dir, bool threadPool) {
  const std::string build = dir + "/build", log = dir + "/build.log";
  llvm::errs() << "saguaro: building libsaguaro_model.a\n";
  if (auto e = runQuiet({"cmake", "-S", dir, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"}, log))
    return e;
  if (auto e = runQuiet({"cmake", "--build", build, "--target", "saguaro_model_size_probe"}, log))
    return e;
  auto sizes = sectionSizes(build + "/saguaro_model_size_probe");
  if (!sizes)
    return sizes.takeError();
  uint64_t libraryBytes = 0;
  if (std::error_code ec = llvm::sys::fs::file_size(dir + "/libsaguaro_model.a", libraryBytes))
    return fileError(dir + "/libsaguaro_model.a", "cannot stat: " + ec.message());
  auto manifest = readBundleManifest(dir);
  if (!manifest)
    return manifest.takeError();
  (*manifest)["firmware"] = firmwareSizes(*sizes, *manifest, libraryBytes, threadPool);
  std::error_code ec;
  llvm::raw_fd_ostream os(dir + "/manifest.json", ec);
  if (ec)
    return fileError(dir + "/manifest.json", "cannot write: " + ec.message());
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(*manifest))) << "\n";
  llvm::sys::fs::remove_directories(build);
  llvm::sys::fs::remove(log);
  return llvm::Error::success();
}
} // namespace

llvm::Error saguaro::checkEmbeddable(const CompileOptions &o) {
  if (o.handoff)
    return fileError(o.model, "--embed-weights cannot link in the cloud handoff (--handoff): it reads credentials "
                              "and a spend ledger from files");
  const kernels::TargetInfo *target = kernels::find_target(o.target.c_str());
  if (target && target->arch != kernels::TargetArch::any && target->arch != kernels::host_arch() &&
      !std::getenv("CMAKE_TOOLCHAIN_FILE"))
    return fileError(o.model, llvm::Twine("--embed-weights builds libsaguaro_model.a now, and --target ") +
                                  o.target + " is for " + archName(target->arch) + " while this machine builds for " +
                                  archName(kernels::host_arch()) +
                                  ": set CMAKE_TOOLCHAIN_FILE to a cross toolchain file (for aarch64: "
                                  "cmake/aarch64-linux-gnu.cmake)");
  return llvm::Error::success();
}

llvm::Error saguaro::emitFirmwareBundle(mlir::ModuleOp module, const BundleInputs &in, const std::string &outDir) {
  return emitBundle(module, in, outDir, [&](const std::string &dir) { return buildLibrary(dir, in.threadPool); });
}
