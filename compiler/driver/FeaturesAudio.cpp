//===- FeaturesAudio.cpp - `saguaro features audio` and `saguaro bench audio` ----------===//
//
// Thin commands over the audio front-end (runtime-min/frontends/audio). The library throws
// internally; this file only calls its exception-free boundary (saguaro/audio/features.h), so
// the driver stays -fno-exceptions.
//
//===------------------------------------------------------------------------------------===//
#include "compiler/driver/Features.h"

#include "saguaro/audio/features.h"
#include "saguaro/npy_writer.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace saguaro;

namespace {
int fail(const std::string &message) {
  llvm::errs() << "saguaro: " << message << "\n";
  return 1;
}

/// A deterministic 30 s test signal for `bench audio` without a file: a chirp plus low noise.
std::vector<float> syntheticSpeechLike(size_t n, double rate) {
  std::vector<float> s(n);
  uint32_t state = 12345;
  for (size_t i = 0; i < n; ++i) {
    double t = static_cast<double>(i) / rate;
    state = state * 1664525u + 1013904223u;
    double noise = (static_cast<double>(state >> 8) / 16777216.0 - 0.5) * 0.02;
    s[i] = static_cast<float>(0.3 * std::sin(2 * 3.14159265358979 * (100 + 120 * t) * t) + noise);
  }
  return s;
}
} // namespace

int saguaro::runFeaturesAudio(const cli::Args &args) {
  const std::string input = args.positional.empty() ? "" : args.positional[0], output = args.value("-o");
  const std::string mel = args.value("--mel"), configFile = args.value("--config"), maskFile = args.value("--mask");
  if (input.empty() || output.empty())
    return fail("features audio needs FILE and -o OUT.npy\n" + cli::usageLine(*args.command));
  if (mel.empty() && configFile.empty())
    return fail("features audio needs --mel PRESET or --config preprocessor_config.json\n" +
                cli::usageLine(*args.command));
  audio::Result<audio::LogMelConfig> config =
      audio::makeConfig(mel.empty() ? "whisper-80" : mel, configFile, args.has("--pad-30s"));
  if (!config.ok())
    return fail(config.error);
  if (!maskFile.empty() && (args.has("--pcm-only") || !config.value.zeroPaddedFrames))
    return fail("--mask needs features with a frame mask (gemma4), not " +
                std::string(args.has("--pcm-only") ? "--pcm-only" : "Whisper's"));
  std::string err;
  if (args.has("--pcm-only")) {
    audio::Result<std::vector<float>> pcm = audio::loadAudio(input, config.value);
    if (!pcm.ok())
      return fail(pcm.error);
    if (!write_npy_f32(output, pcm.value, 1, pcm.value.size(), &err))
      return fail(err);
    return 0;
  }
  audio::Result<audio::Features> features = audio::extractFeatures(input, config.value);
  if (!features.ok())
    return fail(features.error);
  const audio::Features &f = features.value;
  const bool ok = config.value.timeMajor ? write_npy_f32(output, f.transposed(), f.nFrames, f.nMels, &err)
                                         : write_npy_f32(output, f.data, f.nMels, f.nFrames, &err);
  if (!ok)
    return fail(err);
  if (!maskFile.empty()) {
    std::vector<uint8_t> mask(f.nFrames, 0);
    std::fill(mask.begin(), mask.begin() + static_cast<long>(f.nValid), 1);
    if (!write_npy_bool(maskFile, mask, &err)) {
      std::remove(output.c_str()); // both outputs or neither
      return fail(err);
    }
  }
  return 0;
}

int saguaro::runBenchAudio(const cli::Args &args) {
  const std::string input = args.positional.empty() ? "" : args.positional[0];
  const bool json = args.has("--json");
  const int runs = std::max(1, std::atoi(args.value("--runs", "20").c_str()));
  audio::LogMelConfig config = audio::LogMelConfig::whisper(80);
  const size_t n = config.chunkSamples; // 30 s at 16 kHz
  std::vector<float> samples;
  if (input.empty()) {
    samples = syntheticSpeechLike(n, config.sampleRate);
  } else {
    audio::Result<std::vector<float>> pcm = audio::loadAudio(input, config);
    if (!pcm.ok())
      return fail(pcm.error);
    if (pcm.value.empty())
      return fail(input + ": has no samples to tile");
    for (size_t i = 0; i < n; ++i) // the file repeated until 30 s
      samples.push_back(pcm.value[i % pcm.value.size()]);
  }
  audio::Result<std::vector<double>> ms = audio::timeLogMel(samples, config, runs);
  if (!ms.ok())
    return fail(ms.error);
  std::vector<double> sorted = ms.value;
  std::sort(sorted.begin(), sorted.end());
  const double best = sorted.front(), median = sorted[sorted.size() / 2];
  const double seconds = static_cast<double>(n) / config.sampleRate;
  if (json) {
    llvm::json::Object o{{"source", input.empty() ? std::string("synthetic") : input},
                         {"mel", "whisper-80"},
                         {"audio_seconds", seconds},
                         {"frames", static_cast<int64_t>(n / config.hop)},
                         {"threads", 1},
                         {"runs", runs},
                         {"best_ms", best},
                         {"median_ms", median}};
    llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(o))) << "\n";
  } else {
    llvm::outs() << llvm::formatv("audio -> whisper-80 log-mel: {0} s of {1} ({2} frames), one thread, {3} runs\n",
                                  seconds, input.empty() ? std::string("synthetic audio") : input,
                                  n / config.hop, runs)
                 << llvm::formatv("best {0:F2} ms, median {1:F2} ms ({2:F0}x real time at the median)\n", best,
                                  median, seconds * 1000.0 / median);
  }
  return 0;
}
