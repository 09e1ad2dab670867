//===- Encode.cpp - `saguaro encode`: an image's soft tokens ---------------------------===//
//
// The vision tower apart from decoding: the image front-end makes the patches and positions the
// model's image processor would (docs/image.md, "Gemma 4"), with the patch size, pooling and
// soft-token budget the bundle was compiled for (manifest.json's "vision"), and the bundle's
// program encodes them (saguaro_bundle --encode-image). The intermediate files live in a
// temporary directory that is removed afterwards; the output is written only on success.
//
//===------------------------------------------------------------------------------------===//
#include "compiler/driver/Encode.h"

#include "compiler/driver/BundleCache.h"
#include "compiler/driver/ProgramRun.h"
#include "saguaro/image/features.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace saguaro;

namespace {
int fail(const std::string &message) {
  llvm::errs() << "saguaro: " << message << "\n";
  return 1;
}

/// The bundle's vision tower as its manifest states it; an error naming `source` when it has none.
llvm::Expected<llvm::json::Object> visionOf(const std::string &bundle, const std::string &source) {
  auto manifest = readBundleManifest(bundle);
  if (!manifest)
    return manifest.takeError();
  const llvm::json::Object *vision = manifest->getObject("vision");
  if (!vision)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   source + ": the model has no vision tower (its config has no vision_config)");
  return *vision;
}

/// A removed-on-exit directory for the intermediate files.
struct ScratchDir {
  llvm::SmallString<128> path;
  ~ScratchDir() {
    if (!path.empty())
      llvm::sys::fs::remove_directories(path);
  }
};
} // namespace

int saguaro::runEncode(const EncodeOptions &o) {
  auto vision = visionOf(o.bundle, o.source);
  if (!vision)
    return fail(llvm::toString(vision.takeError()));
  const int64_t compiled = vision->getInteger("max_soft_tokens").value_or(0);
  if (o.maxSoftTokens > compiled)
    return fail("--max-soft-tokens " + std::to_string(o.maxSoftTokens) + " is above the " +
                std::to_string(compiled) + " soft tokens per image the bundle was compiled for");
  ScratchDir scratch;
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory("saguaro-encode", scratch.path))
    return fail("cannot create a temporary directory: " + ec.message());
  auto file = [&](const char *name) { return (scratch.path + "/" + name).str(); };

  // The image processor's settings: the model's config, else Gemma4ImageProcessor's with the compiled tower's
  // patch size, pooling and budget.
  image::FeaturesRequest request;
  request.config_path = o.config;
  if (request.config_path.empty()) {
    request.config_path = file("preprocessor_config.json");
    llvm::json::Object config{{"image_processor_type", "Gemma4ImageProcessor"},
                              {"patch_size", vision->getInteger("patch_size").value_or(16)},
                              {"pooling_kernel_size", vision->getInteger("pooling").value_or(3)},
                              {"max_soft_tokens", compiled}};
    std::error_code ec;
    llvm::raw_fd_ostream out(request.config_path, ec);
    if (ec)
      return fail(request.config_path + ": " + ec.message());
    out << llvm::json::Value(std::move(config));
  }
  request.image_path = o.pixels.empty() ? o.image : o.pixels;
  request.resized_pixels = !o.pixels.empty();
  request.max_soft_tokens = o.maxSoftTokens;
  request.output_path = file("patches.npy");
  request.positions_path = file("positions.npy");
  image::FeaturesResult result;
  std::string err;
  if (!image::write_image_features(request, &result, &err))
    return fail(err);

  std::vector<std::string> args = {o.program, o.bundle, "--encode-image", request.output_path, "--positions",
                                   request.positions_path, "-o", file("soft_tokens.npy")};
  args.insert(args.end(), o.programArgs.begin(), o.programArgs.end());
  std::vector<llvm::StringRef> refs(args.begin(), args.end());
  const std::string log = file("log.txt");
  if (int code = runRedirected(o.program, refs, std::nullopt, log, &err); code != 0) {
    // The program names the intermediate patches; the user knows the image they came from.
    std::string said = readLog(log);
    for (size_t at; (at = said.find(request.output_path)) != std::string::npos;)
      said.replace(at, request.output_path.size(), request.image_path);
    llvm::errs() << (said.empty() ? "saguaro: " + o.program + ": " + err : said) << "\n";
    return code > 0 ? code : 1;
  }
  // The soft tokens leave the scratch directory only whole (a rename, or a copy to a temporary beside the output).
  const std::string tmp = o.output + ".tmp";
  if (std::error_code ec = llvm::sys::fs::copy_file(file("soft_tokens.npy"), tmp))
    return fail(o.output + ": cannot write: " + ec.message());
  if (std::error_code ec = llvm::sys::fs::rename(tmp, o.output)) {
    llvm::sys::fs::remove(tmp);
    return fail(o.output + ": cannot write: " + ec.message());
  }
  const int64_t pooling = vision->getInteger("pooling").value_or(3);
  llvm::outs() << "wrote " << o.output << ": " << result.shape[0] / (pooling * pooling) << " soft tokens from "
               << result.shape[0] << " patches\n";
  return 0;
}

