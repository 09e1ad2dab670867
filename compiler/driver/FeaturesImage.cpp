//===- FeaturesImage.cpp - `saguaro features image` ------------------------------------===//
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
} // namespace

int saguaro::runFeaturesImage(const cli::Args &args) {
  image::FeaturesRequest request;
  request.image_path = args.positional.empty() ? "" : args.positional[0];
  request.output_path = args.value("-o");
  request.config_path = args.value("--config");
  request.decode_only = args.has("--decode-only");
  if (request.image_path.empty() || request.output_path.empty())
    return fail(cli::usageLine(*args.command));
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
