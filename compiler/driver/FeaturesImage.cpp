//===- FeaturesImage.cpp - `saguaro features image` ------------------------------------===//
//
// Writes the decoded or resized uint8 [H, W, 3] pixels (--decode-only, --resized-only) or the
// float32 features a vision tower would read, with Gemma 4's patch positions, from an image file or
// (--pixels) from an already resized image (docs/image.md gives the shapes). The image library throws; its write_image_features() entry point turns that into a
// message, so no exception reaches here.
//
//===------------------------------------------------------------------------------------===//
#include "compiler/driver/Features.h"

#include "saguaro/image/features.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <string>

namespace {
int fail(const std::string &message) {
  llvm::errs() << "saguaro: " << message << "\n";
  return 1;
}
} // namespace

int saguaro::runFeaturesImage(const cli::Args &args) {
  image::FeaturesRequest request;
  request.image_path = args.positional.empty() ? args.value("--pixels") : args.positional[0];
  request.resized_pixels = args.has("--pixels");
  request.output_path = args.value("-o");
  request.config_path = args.value("--config");
  request.decode_only = args.has("--decode-only");
  request.resized_only = args.has("--resized-only");
  request.positions_path = args.value("--positions");
  if (request.image_path.empty() || request.output_path.empty() ||
      (request.resized_pixels && !args.positional.empty()))
    return fail(cli::usageLine(*args.command));
  if (request.resized_pixels && (request.decode_only || request.resized_only))
    return fail("features image: --pixels are resized already; --decode-only and --resized-only do not apply");
  if (request.decode_only && (!request.config_path.empty() || request.resized_only))
    return fail("features image: --decode-only excludes --config and --resized-only");
  if (request.resized_only && !request.positions_path.empty())
    return fail("features image: --resized-only writes no positions");
  if (args.has("--max-soft-tokens")) {
    const std::string n = args.value("--max-soft-tokens");
    char *end = nullptr;
    const long value = std::strtol(n.c_str(), &end, 10);
    if (n.empty() || *end != '\0' || value <= 0 || value > 1 << 20)
      return fail("features image: --max-soft-tokens: expected a positive integer, got '" + n + "'");
    request.max_soft_tokens = static_cast<int>(value);
  }

  image::FeaturesResult result;
  std::string err;
  if (!image::write_image_features(request, &result, &err))
    return fail(err);
  llvm::outs() << "wrote " << request.output_path << ": " << result.dtype << " [";
  for (size_t i = 0; i < result.shape.size(); ++i)
    llvm::outs() << (i ? ", " : "") << result.shape[i];
  llvm::outs() << "]\n";
  if (!result.positions_shape.empty())
    llvm::outs() << "wrote " << request.positions_path << ": int32 [" << result.positions_shape[0] << ", 2]\n";
  return 0;
}
