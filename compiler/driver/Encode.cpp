//===- Encode.cpp - `saguaro encode`: an image's or a clip's soft tokens ---------------===//
//
// A tower apart from decoding. Vision: the image front-end makes the patches and positions the
// model's image processor would (docs/image.md, "Gemma 4"), with the patch size, pooling and
// soft-token budget the bundle was compiled for (manifest.json's "vision"), and the bundle's
// program encodes them (saguaro_bundle --encode-image). Audio: the audio front-end makes Gemma 4's
// log-mel frames (docs/audio.md) and the program encodes the valid ones (--encode-audio); a WAV on
// standard input (`--audio -`) is made into frames as its bytes arrive. The
// intermediate files live in a temporary directory that is removed afterwards; the output is
// written only on success.
//
//===------------------------------------------------------------------------------------===//
#include "compiler/driver/Encode.h"

#include "compiler/driver/BundleCache.h"
#include "compiler/driver/ProgramRun.h"
#include "saguaro/audio/features.h"
#include "saguaro/image/features.h"
#include "saguaro/npy_writer.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace saguaro;

namespace {
int fail(const std::string &message) {
  llvm::errs() << "saguaro: " << message << "\n";
  return 1;
}

/// The bundle's tower `kind` ("vision", "audio") as its manifest states it; an error naming `source` when it has none.
llvm::Expected<llvm::json::Object> towerOf(const std::string &bundle, const std::string &source,
                                           llvm::StringRef kind) {
  auto manifest = readBundleManifest(bundle);
  if (!manifest)
    return manifest.takeError();
  const llvm::json::Object *tower = manifest->getObject(kind);
  if (!tower)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        source + ": the model has no " + kind + " tower (its config has no " + kind + "_config" +
            (kind == "audio" ? ", or its files do not hold the tower)" : ")"));
  return *tower;
}

/// A removed-on-exit directory for the intermediate files.
struct ScratchDir {
  llvm::SmallString<128> path;
  ~ScratchDir() {
    if (!path.empty())
      llvm::sys::fs::remove_directories(path);
  }
  std::string file(const char *name) const { return (path + "/" + name).str(); }
};

/// Runs the bundle's program on `args` (its input files in `scratch`, the soft tokens to scratch's
/// soft_tokens.npy), then moves the soft tokens to o.output, whole or not at all. The program's errors name
/// `input`, the file the user gave, instead of `intermediate`.
int runTower(const EncodeOptions &o, const ScratchDir &scratch, std::vector<std::string> args,
             const std::string &intermediate, const std::string &input) {
  args.insert(args.begin(), {o.program, o.bundle});
  args.insert(args.end(), {"-o", scratch.file("soft_tokens.npy")});
  args.insert(args.end(), o.programArgs.begin(), o.programArgs.end());
  std::vector<llvm::StringRef> refs(args.begin(), args.end());
  const std::string log = scratch.file("log.txt");
  std::string err;
  if (int code = runRedirected(o.program, refs, std::nullopt, log, &err); code != 0) {
    std::string said = readLog(log);
    for (size_t at; !intermediate.empty() && (at = said.find(intermediate)) != std::string::npos;)
      said.replace(at, intermediate.size(), input);
    llvm::errs() << (said.empty() ? "saguaro: " + o.program + ": " + err : said) << "\n";
    return code > 0 ? code : 1;
  }
  // The soft tokens leave the scratch directory only whole (a rename, or a copy to a temporary beside the output).
  const std::string tmp = o.output + ".tmp";
  if (std::error_code ec = llvm::sys::fs::copy_file(scratch.file("soft_tokens.npy"), tmp))
    return fail(o.output + ": cannot write: " + ec.message());
  if (std::error_code ec = llvm::sys::fs::rename(tmp, o.output)) {
    llvm::sys::fs::remove(tmp);
    return fail(o.output + ": cannot write: " + ec.message());
  }
  return 0;
}

/// The audio tower: the valid log-mel frames of Gemma 4's feature extractor (docs/audio.md), or the given ones.
int runEncodeAudio(const EncodeOptions &o, const ScratchDir &scratch) {
  std::string frames = o.features, input = o.features;
  size_t n = 0;
  if (!o.audio.empty()) {
    input = o.audio;
    audio::Result<audio::LogMelConfig> config = audio::makeConfig("gemma4", "", false);
    if (!config.ok())
      return fail(config.error);
    std::vector<float> valid;
    if (o.audio == "-") { // a WAV arriving on standard input: frames are made as its samples come in
      input = "standard input";
      audio::Result<std::vector<float>> streamed = audio::streamValidFrames(0, input, config.value);
      if (!streamed.ok())
        return fail(streamed.error);
      valid = std::move(streamed.value);
    } else {
      audio::Result<audio::Features> features = audio::extractFeatures(o.audio, config.value);
      if (!features.ok())
        return fail(features.error);
      const audio::Features &f = features.value;
      if (f.nValid == 0)
        return fail(o.audio + ": the clip is too short for one mel frame (161 samples at 16 kHz)");
      valid = audio::validFramesTimeMajor(f); // the tower reads no padding
    }
    n = valid.size() / config.value.nMels;
    frames = scratch.file("frames.npy");
    std::string err;
    if (!write_npy_f32(frames, valid, n, config.value.nMels, &err))
      return fail(err);
  }
  if (int code = runTower(o, scratch, {"--encode-audio", frames}, frames, input))
    return code;
  llvm::outs() << "wrote " << o.output;
  if (n > 0)
    llvm::outs() << ": " << (n + 3) / 4 << " soft tokens from " << n << " mel frames";
  llvm::outs() << "\n";
  return 0;
}
} // namespace

int saguaro::runEncode(const EncodeOptions &o) {
  const bool audio = !o.audio.empty() || !o.features.empty();
  auto tower = towerOf(o.bundle, o.source, audio ? "audio" : "vision");
  if (!tower)
    return fail(llvm::toString(tower.takeError()));
  ScratchDir scratch;
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory("saguaro-encode", scratch.path))
    return fail("cannot create a temporary directory: " + ec.message());
  if (audio)
    return runEncodeAudio(o, scratch);
  const llvm::json::Object *vision = &*tower;
  auto file = [&](const char *name) { return scratch.file(name); };
  const int64_t compiled = vision->getInteger("max_soft_tokens").value_or(0);
  if (o.maxSoftTokens > compiled)
    return fail("--max-soft-tokens " + std::to_string(o.maxSoftTokens) + " is above the " +
                std::to_string(compiled) + " soft tokens per image the bundle was compiled for");

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

  if (int code = runTower(o, scratch, {"--encode-image", request.output_path, "--positions", request.positions_path},
                          request.output_path, request.image_path))
    return code;
  const int64_t pooling = vision->getInteger("pooling").value_or(3);
  llvm::outs() << "wrote " << o.output << ": " << result.shape[0] / (pooling * pooling) << " soft tokens from "
               << result.shape[0] << " patches\n";
  return 0;
}

