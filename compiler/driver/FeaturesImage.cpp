//===- FeaturesImage.cpp - `saguaro features image` ------------------------------------===//
//
//   saguaro features image FILE [--decode-only] [--config preprocessor_config.json] -o OUT.npy
//
// Writes the decoded uint8 [H, W, 3] pixels (--decode-only) or the float32 features a vision
// tower would read (docs/image.md gives the shapes). The image library throws; its
// write_image_features() entry point turns that into a message, so no exception reaches here.
//
//===------------------------------------------------------------------------------------===//
#include "compiler/driver/Features.h"

#include "saguaro/image/features.h"

#include "llvm/Support/raw_ostream.h"

#include <string>

namespace {
int fail(const std::string &message) {
  llvm::errs() << "saguaro: " << message << "\n";
  return 1;
}

const char *kImageUsage =
    "usage: saguaro features image FILE [--decode-only] [--config preprocessor_config.json] -o OUT.npy";
} // namespace

int saguaro::runFeaturesImage(int argc, char **argv) {
  image::FeaturesRequest request;
  for (int i = 3; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--decode-only") {
      request.decode_only = true;
    } else if ((arg == "--config" || arg == "-o") && i + 1 < argc) {
      (arg == "-o" ? request.output_path : request.config_path) = argv[++i];
    } else if (!arg.empty() && arg[0] == '-') {
      return fail("features image: unknown or incomplete option '" + arg + "'\n" + kImageUsage);
    } else if (request.image_path.empty()) {
      request.image_path = arg;
    } else {
      return fail("features image: unexpected argument '" + arg + "'\n" + kImageUsage);
    }
  }
  if (request.image_path.empty() || request.output_path.empty())
    return fail(kImageUsage);
  if (request.decode_only && !request.config_path.empty())
    return fail("features image: --decode-only and --config exclude each other");

  image::FeaturesResult result;
  std::string err;
  if (!image::write_image_features(request, &result, &err))
    return fail(err);
  llvm::outs() << "wrote " << request.output_path << ": " << result.dtype << " [";
  for (size_t i = 0; i < result.shape.size(); ++i)
    llvm::outs() << (i ? ", " : "") << result.shape[i];
  llvm::outs() << "]\n";
  return 0;
}
