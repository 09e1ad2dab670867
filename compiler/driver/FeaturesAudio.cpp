//===- FeaturesAudio.cpp - `saguaro features audio` and `saguaro bench audio` ----------===//
//
// Thin commands over the audio front-end (runtime-min/frontends/audio). The library throws
// internally; this file only calls its exception-free boundary (saguaro/audio/features.h), so
// the driver stays -fno-exceptions.
//
//===------------------------------------------------------------------------------------===//
#include "compiler/driver/Features.h"

#include "npy_writer.h"
#include "saguaro/audio/features.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

using namespace saguaro;

namespace {
int fail(const std::string &message) {
  llvm::errs() << "saguaro: " << message << "\n";
  return 1;
}

const char *kFeaturesUsage =
    "usage: saguaro features audio FILE --mel whisper-80|whisper-128|gemma [--pad-30s] "
    "[--config preprocessor_config.json] [--pcm-only] -o OUT.npy";

struct FeaturesOptions {
  std::string input, output, mel, config;
  bool pad30s = false, pcmOnly = false;
};

/// Parses argv[3..]; returns an error message or "".
std::string parseFeatures(int argc, char **argv, FeaturesOptions &o) {
  for (int i = 3; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](std::string &out) {
      if (i + 1 >= argc)
        return false;
      out = argv[++i];
      return true;
    };
    if (a == "--mel" || a == "-o" || a == "--config") {
      if (!value(a == "--mel" ? o.mel : a == "-o" ? o.output : o.config))
        return a + " needs a value";
    } else if (a == "--pad-30s") {
      o.pad30s = true;
    } else if (a == "--pcm-only") {
      o.pcmOnly = true;
    } else if (!a.empty() && a[0] == '-') {
      return "unknown option '" + a + "'";
    } else if (o.input.empty()) {
      o.input = a;
    } else {
      return "unexpected argument '" + a + "'";
    }
  }
  if (o.input.empty() || o.output.empty())
    return "features audio needs FILE and -o OUT.npy";
  if (o.mel.empty() && o.config.empty())
    return "features audio needs --mel PRESET or --config preprocessor_config.json";
  return "";
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

int saguaro::runFeaturesAudio(int argc, char **argv) {
  FeaturesOptions o;
  if (std::string err = parseFeatures(argc, argv, o); !err.empty())
    return fail(err + "\n" + kFeaturesUsage);
  audio::Result<audio::LogMelConfig> config =
      audio::makeConfig(o.mel.empty() ? "whisper-80" : o.mel, o.config, o.pad30s);
  if (!config.ok())
    return fail(config.error);
  std::string err;
  if (o.pcmOnly) {
    audio::Result<std::vector<float>> pcm = audio::loadAudio(o.input, config.value.sampleRate);
    if (!pcm.ok())
      return fail(pcm.error);
    if (!write_npy_f32(o.output, pcm.value, 1, pcm.value.size(), &err))
      return fail(err);
    return 0;
  }
  audio::Result<audio::Features> features = audio::extractFeatures(o.input, config.value);
  if (!features.ok())
    return fail(features.error);
  const audio::Features &f = features.value;
  if (!write_npy_f32(o.output, f.data, f.nMels, f.nFrames, &err))
    return fail(err);
  return 0;
}

int saguaro::runBenchAudio(int argc, char **argv) {
  std::string input;
  bool json = false;
  int runs = 20;
  for (int i = 3; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--json")
      json = true;
    else if (a == "--runs" && i + 1 < argc)
      runs = std::max(1, std::atoi(argv[++i]));
    else if (!a.empty() && a[0] != '-' && input.empty())
      input = a;
    else
      return fail("usage: saguaro bench audio [FILE] [--runs N] [--json]");
  }
  audio::LogMelConfig config = audio::LogMelConfig::whisper(80);
  const size_t n = config.chunkSamples; // 30 s at 16 kHz
  std::vector<float> samples;
  if (input.empty()) {
    samples = syntheticSpeechLike(n, config.sampleRate);
  } else {
    audio::Result<std::vector<float>> pcm = audio::loadAudio(input, config.sampleRate);
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
