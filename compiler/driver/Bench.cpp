//===- Bench.cpp - `saguaro bench MODEL` ------------------------------------------------===//
//
// For every bits value: compile the model through the bundle cache, build it, and run
// `saguaro_bundle BUNDLE --bench` (runtime-min/src/bench.cpp), which measures prefill and
// decode speed together with the machine's read bandwidth and int8 MAC peak in one process.
// The bundle reports decode efficiency itself; prefill efficiency needs the multiply-
// accumulates per token, which this file counts from manifest.json (the blob alone does not
// know the unpadded width of a CQ matrix).
//
//===------------------------------------------------------------------------------------===//
#include "compiler/driver/Bench.h"

#include <thread>

#include "compiler/driver/BundleCache.h"
#include "saguaro/audio/features.h"
#include "saguaro/image/resize.h"
#include "saguaro/image/soft_token_patches.h"
#include "compiler/driver/ProgramRun.h"
#include "compiler/import/ModelDesc.h"
#include "saguaro/kernels/cpu_features.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

using namespace saguaro;

namespace {
int fail(const std::string &message) {
  llvm::errs() << "saguaro: " << message << "\n";
  return 1;
}

/// Multiply-accumulates per token: the parameters of every weight matrix a token goes through. A CQ matrix
/// counts N·K from its stored bytes and bits per weight (manifest.json: bpw = bytes·8 / (N·K)); a table only
/// gathered (manifest.json's residency "mapped": a per-layer-embedding table, an untied token embedding) does not
/// count, a tied embedding does (it is also the output projection).
llvm::Expected<double> macsPerToken(const std::string &bundle) {
  std::string path = bundle + "/manifest.json";
  auto m = readBundleManifest(bundle);
  if (!m)
    return m.takeError();
  const llvm::json::Array *tensors = m->getArray("tensors");
  if (!tensors)
    return fileError(path, "needs 'tensors'");
  struct Matrix {
    double params = 0;
    uint64_t bytes = 0;
    bool gathered = false;
  };
  std::map<std::string, Matrix> matrices; // by weight name (CQ parts folded into their matrix)
  for (const llvm::json::Value &v : *tensors) {
    const llvm::json::Object *t = v.getAsObject();
    const llvm::json::Array *shape = t ? t->getArray("shape") : nullptr;
    if (!shape || shape->size() != 2)
      continue;
    llvm::StringRef name = t->getString("name").value_or("");
    llvm::StringRef quant = t->getString("quantization").value_or("none");
    int64_t rows = (*shape)[0].getAsInteger().value_or(0), cols = (*shape)[1].getAsInteger().value_or(0);
    const bool gathered = t->getString("residency").value_or("") == "mapped";
    if (quant == "none") {
      matrices[name.str()] = {static_cast<double>(rows) * static_cast<double>(cols), 0, gathered};
    } else if (name.consume_back(".codes") || name.consume_back(".norms")) {
      Matrix &q = matrices[name.str()];
      q.bytes += static_cast<uint64_t>(t->getInteger("bytes").value_or(0));
      q.gathered = gathered;
    }
  }
  if (const llvm::json::Array *quantized = m->getArray("quantized"))
    for (const llvm::json::Value &v : *quantized) {
      const llvm::json::Object *q = v.getAsObject();
      auto it = q ? matrices.find(q->getString("name").value_or("").str()) : matrices.end();
      double bpw = q ? q->getNumber("bits_per_weight").value_or(0) : 0;
      if (it != matrices.end() && bpw > 0)
        it->second.params = std::round(static_cast<double>(it->second.bytes) * 8.0 / bpw);
    }
  double macs = 0;
  for (const auto &[name, w] : matrices)
    if (!w.gathered)
      macs += w.params;
  return macs;
}

/// manifest.json's object of the tower `kind` ("vision", "audio") and its "model" object.
llvm::Expected<std::pair<llvm::json::Object, llvm::json::Object>> towerAndModel(const std::string &bundle,
                                                                                llvm::StringRef kind) {
  auto m = readBundleManifest(bundle);
  if (!m)
    return m.takeError();
  const llvm::json::Object *tower = m->getObject(kind), *model = m->getObject("model");
  if (!tower || !model)
    return fileError(bundle + "/manifest.json", "has no " + kind.str() + " tower");
  return std::make_pair(*tower, *model);
}

/// An integer of a manifest object as a double (0 when absent), for MAC counts.
double manifestNumber(const llvm::json::Object *o, llvm::StringRef key) {
  return static_cast<double>(o->getInteger(key).value_or(0));
}

/// The multiply-accumulates of one image of `patches` patches through the vision tower manifest.json describes:
/// the matrix products (int8 with CQ weights, float32 with float ones) and attention's q·k and p·v (float32).
struct ImageMacs {
  double products = 0, attention = 0;
};
llvm::Expected<ImageMacs> imageMacs(const std::string &bundle, int64_t patches) {
  auto objects = towerAndModel(bundle, "vision");
  if (!objects)
    return objects.takeError();
  const llvm::json::Object *v = &objects->first, *model = &objects->second;
  auto get = [&](llvm::StringRef key) { return manifestNumber(v, key); };
  const double n = static_cast<double>(patches), d = get("dim"), hidden = get("hidden"),
               q = get("heads") * get("head_dim"), kv = get("kv_heads") * get("head_dim"), p = get("patch_size"),
               k = get("pooling");
  ImageMacs macs;
  macs.products = n * 3 * p * p * d + get("layers") * n * (d * (q + 2 * kv) + q * d + 3 * d * hidden) +
                  n / (k * k) * d * manifestNumber(model, "dim");
  macs.attention = get("layers") * 2 * n * n * q;
  return macs;
}

/// The multiply-accumulates of a clip of `frames` mel frames through the audio tower manifest.json describes: the
/// subsampling convolutions, the matrix products (int8 with CQ weights, float32 with float ones) and attention's q·k,
/// relative-key and p·v products over at most `past + 1` keys (float32). Counted in ImageMacs' two parts.
llvm::Expected<ImageMacs> audioMacs(const std::string &bundle, int64_t frames) {
  auto objects = towerAndModel(bundle, "audio");
  if (!objects)
    return objects.takeError();
  const llvm::json::Object *a = &objects->first, *model = &objects->second;
  const llvm::json::Array *channels = a->getArray("channels");
  if (!channels || channels->size() != 2)
    return fileError(bundle + "/manifest.json", "states no subsampling channels for the audio tower");
  const double c0 = static_cast<double>((*channels)[0].getAsInteger().value_or(0)),
               c1 = static_cast<double>((*channels)[1].getAsInteger().value_or(0));
  const double rows2 = static_cast<double>((frames + 1) / 2), tokens = static_cast<double>((frames + 3) / 4);
  auto get = [&](llvm::StringRef key) { return manifestNumber(a, key); };
  const double d = get("dim"), mel = get("mel"), keys = get("past") + 1;
  ImageMacs macs;
  // conv0: 1 input channel, conv1: c0; both 3x3 over the halved mel columns; the input projection reads c0/4 · c1.
  macs.products = rows2 * (mel / 2) * c0 * 9 + tokens * (mel / 4) * c1 * c0 * 9 +
                  tokens * (c0 / 4 * c1 * d + get("layers") * 23 * d * d +
                            get("proj_dims") * (d + manifestNumber(model, "dim")));
  macs.attention = get("layers") * tokens * 3 * keys * d;
  return macs;
}

/// Milliseconds (median of 5) that Gemma 4's image processor rules take on a 1344 x 1920 RGB photo-sized image:
/// the resize to the 280-token budget (Pillow-exact bicubic) and the patches with their positions. Decoding is not
/// included: the pixels are synthetic. (The image library reports bad input by exception; this fixed input has
/// none, and the driver is built without exceptions.)
double preprocessMs() {
  image::Rgb8 photo(1920, 1344);
  uint64_t rng = 0x5eed;
  for (uint8_t &px : photo.pixels)
    px = static_cast<uint8_t>((rng = rng * 6364136223846793005ull + 1442695040888963407ull) >> 56);
  image::SoftTokenBudget budget;
  image::Normalization norm;
  norm.normalize = false;
  std::vector<double> ms;
  for (int run = 0; run < 5; ++run) {
    auto t0 = std::chrono::steady_clock::now();
    image::Size size = image::soft_token_size(photo.height, photo.width, budget);
    image::Rgb8 resized = image::resize(photo, size.width, size.height, image::Resample::Bicubic);
    image::SoftTokenPatches patches = image::soft_token_patches(resized, norm, budget, "bench");
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

/// Milliseconds (median of 5) that Gemma 4's log-mel front-end takes on 30 s of audio (480000 samples of noise) at
/// once, as a whole file is processed after its last sample; 0 if the front-end refuses (it does not on this input).
double logMelMs() {
  std::vector<float> samples(480000);
  uint64_t rng = 0x5eed;
  for (float &x : samples)
    x = static_cast<float>((rng = rng * 6364136223846793005ull + 1442695040888963407ull) >> 40) / 16777216.0f - 0.5f;
  audio::Result<audio::LogMelConfig> config = audio::makeConfig("gemma4", "", false);
  audio::Result<std::vector<double>> ms = audio::timeLogMel(samples, config.value, 5);
  if (!config.ok() || !ms.ok())
    return 0;
  std::sort(ms.value.begin(), ms.value.end());
  return ms.value[ms.value.size() / 2];
}

/// One row of the report.
struct Result {
  int bits = 0, threads = 0;
  llvm::json::Object measured; // what the bundle program wrote
  double macsPerToken = 0, prefillEfficiency = 0;
  ImageMacs imageMacs; // --image, --audio
};

double number(const llvm::json::Object &o, llvm::StringRef key) { return o.getNumber(key).value_or(0); }

/// Compiles, builds and benchmarks one configuration.
llvm::Expected<Result> benchOne(const BenchOptions &o, const std::string &target, int bits, int threads) {
  CompileOptions c;
  c.model = o.model;
  c.target = target;
  if (o.policy.empty())
    c.bits = bits;
  c.policy = o.policy;
  c.kvCache = o.kvCache;
  auto bundle = cachedBundle(c);
  if (!bundle)
    return bundle.takeError();
  auto exe = buildBundle(*bundle);
  if (!exe)
    return exe.takeError();
  llvm::SmallString<128> out;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile("saguaro-bench", "json", out))
    return fileError("saguaro-bench.json", "cannot create a temporary file: " + ec.message());
  std::string outPath = out.str().str(), log = outPath + ".log";
  llvm::errs() << "saguaro: benchmarking " << *bundle << " ("
               << (o.policy.empty() ? "bits " + std::to_string(bits) : "policy " + o.policy) << ", " << threads
               << (threads == 1 ? " thread)\n" : " threads)\n");
  std::vector<std::string> args = {*exe, *bundle, "-o", outPath, "--threads", std::to_string(threads)};
  if (o.image || o.audio)
    args.push_back(o.image ? "--bench-image" : "--bench-audio");
  else
    args.insert(args.end(), {"--bench", "--prompt-tokens", std::to_string(o.promptTokens)});
  std::vector<llvm::StringRef> refs(args.begin(), args.end());
  int rc = runRedirected(*exe, refs, std::nullopt, log);
  std::string why = readLog(log);
  llvm::sys::fs::remove(log);
  if (rc != 0) {
    llvm::sys::fs::remove(outPath);
    return fileError(*bundle, "the bench run failed: " + why);
  }
  auto json = readJsonFile(outPath);
  llvm::sys::fs::remove(outPath);
  if (!json)
    return json.takeError();
  if (!json->getAsObject())
    return fileError(*bundle, "the bench run wrote no JSON object");
  Result r;
  r.bits = bits;
  r.threads = threads;
  r.measured = std::move(*json->getAsObject());
  if (o.image || o.audio) {
    auto macs = o.image ? imageMacs(*bundle, static_cast<int64_t>(number(r.measured, "patches")))
                        : audioMacs(*bundle, static_cast<int64_t>(number(r.measured, "frames")));
    if (!macs)
      return macs.takeError();
    r.imageMacs = *macs;
    return r;
  }
  auto macs = macsPerToken(*bundle);
  if (!macs)
    return macs.takeError();
  r.macsPerToken = *macs;
  double peak = number(r.measured, "mac_peak_gops");
  r.prefillEfficiency = peak > 0 ? number(r.measured, "prefill_tps") * *macs / (peak * 1e9) : 0;
  return r;
}

/// The --image table: per bits and threads, the milliseconds of one whole-budget image in preprocessing (measured
/// here), the encoder and the prefill of its soft tokens (measured by the bundle program), and the encoder's
/// multiply-accumulate rate beside the machine's int8 and float32 peaks measured in the same process.
void printImageTable(const BenchOptions &o, const std::string &target, const std::vector<Result> &results,
                     double preprocessMs) {
  llvm::outs() << llvm::formatv("{0}: target {1}, vision tower; preprocessing (resize + patches) {2:F1} ms\n",
                                o.model, target, preprocessMs);
  llvm::outs() << llvm::formatv("{0,6} {1,7} {2,8} {3,11} {4,11} {5,11} {6,10} {7,11} {8,11} {9,10} {10,10}\n",
                                "bits", "threads", "patches", "soft tokens", "encoder ms", "prefill ms", "GMAC",
                                "GMAC/s", "int8 peak", "f32 peak", "arena MB");
  for (const Result &r : results) {
    const double gmac = (r.imageMacs.products + r.imageMacs.attention) / 1e9, ms = number(r.measured, "encode_ms");
    llvm::outs() << llvm::formatv("{0,6} {1,7} {2,8:F0} {3,11:F0} {4,11:F1} {5,11:F1} {6,10:F1} {7,11:F1} {8,11:F1} "
                                  "{9,10:F1} {10,10:F1}\n",
                                  r.bits, r.threads, number(r.measured, "patches"), number(r.measured, "soft_tokens"),
                                  ms, number(r.measured, "prefill_ms"), gmac, gmac / (ms / 1e3),
                                  number(r.measured, "mac_peak_gops"), number(r.measured, "fma_peak_gflops"),
                                  number(r.measured, "vision_arena_bytes") / 1e6);
  }
}

/// The --audio table: per bits and threads, 30 s of audio through the tower: the encoder's milliseconds and real-time
/// factor, the prefill of its soft tokens, the time from the clip's last sample to the first token with the whole
/// file processed at the end (log-mel of 30 s, measured here, + encoder + prefill) and streamed as the audio arrived
/// (the tower's last step, over the frames of the last soft token, + prefill: every earlier token went through the
/// step as its frames came in), and the encoder's multiply-accumulate rate beside the machine's int8 and float32
/// peaks measured in the same process.
void printAudioTable(const BenchOptions &o, const std::string &target, const std::vector<Result> &results,
                     double melMs) {
  llvm::outs() << llvm::formatv("{0}: target {1}, audio tower; log-mel of 30 s {2:F1} ms\n", o.model, target, melMs);
  llvm::outs() << llvm::formatv("{0,5} {1,7} {2,6} {3,11} {4,11} {5,6} {6,11} {7,13} {8,13} {9,7} {10,7} {11,9} "
                                "{12,8}\n",
                                "bits", "threads", "frames", "soft tokens", "encoder ms", "RTF", "prefill ms",
                                "1st tok whole", "1st tok strm", "GMAC", "GMAC/s", "int8 peak", "f32 peak");
  for (const Result &r : results) {
    const double gmac = (r.imageMacs.products + r.imageMacs.attention) / 1e9, ms = number(r.measured, "encode_ms"),
                 prefill = number(r.measured, "prefill_ms");
    llvm::outs() << llvm::formatv("{0,5} {1,7} {2,6:F0} {3,11:F0} {4,11:F1} {5,6:F3} {6,11:F1} {7,13:F1} {8,13:F1} "
                                  "{9,7:F1} {10,7:F1} {11,9:F1} {12,8:F1}\n",
                                  r.bits, r.threads, number(r.measured, "frames"), number(r.measured, "soft_tokens"),
                                  ms, ms / (1e3 * number(r.measured, "audio_seconds")), prefill,
                                  melMs + ms + prefill, number(r.measured, "last_step_ms") + prefill, gmac,
                                  gmac / (ms / 1e3),
                                  number(r.measured, "mac_peak_gops"), number(r.measured, "fma_peak_gflops"));
  }
}

void printTable(const BenchOptions &o, const std::string &target, const std::vector<Result> &results,
                double bandwidth, double peak, llvm::StringRef isa) {
  llvm::outs() << llvm::formatv(
      "{0}: target {1}, {2} KV cache; read bandwidth {3:F1} GB/s, int8 MAC peak {4:F1} GMAC/s ({5})\n", o.model,
      target, o.kvCache, bandwidth, peak, isa);
  llvm::outs() << llvm::formatv("{0,6} {1,7} {2,13} {3,12} {4,9} {5,9} {6,11} {7,9} {8,10} {9,10} {10,11} {11,11} "
                                "{12,9} {13,9}\n",
                                "bits", "threads", "prefill tok/s", "decode tok/s", "MB/token", "KV MB/tok",
                                "MMAC/token", "read GB/s", "decode eff", "weight eff", "prefill eff", "resident MB",
                                "mapped MB", "peak RSS");
  for (const Result &r : results)
    llvm::outs() << llvm::formatv(
        "{0,6} {1,7} {2,13:F1} {3,12:F2} {4,9:F1} {5,9:F1} {6,11:F1} {7,9:F1} {8,9:F1}% {9,9:F1}% {10,10:F1}% "
        "{11,11:F1} {12,9:F1} {13,9:F1}\n",
        o.policy.empty() ? std::to_string(r.bits) : std::string("policy"), r.threads,
        number(r.measured, "prefill_tps"), number(r.measured, "decode_tps"),
        number(r.measured, "weight_bytes_per_token") / 1e6, number(r.measured, "kv_bytes_per_token") / 1e6,
        r.macsPerToken / 1e6, number(r.measured, "bandwidth_gbs"), 100 * number(r.measured, "decode_efficiency"),
        100 * number(r.measured, "decode_weight_efficiency"), 100 * r.prefillEfficiency,
        number(r.measured, "resident_bytes") / 1e6, number(r.measured, "mapped_bytes") / 1e6,
        number(r.measured, "peak_rss_bytes") / 1e6);
  for (const Result &r : results)
    llvm::outs() << llvm::formatv("JSON Schema mask over a {0:F0}-token vocabulary: {1:F3} ms per token (slowest {2:F1} "
                                  "ms), beside the decode step's {3:F2} ms ({4} threads)\n",
                                  number(r.measured, "json_mask_vocab"), number(r.measured, "json_mask_ms_per_token"),
                                  number(r.measured, "json_mask_max_ms"), number(r.measured, "decode_ms_per_token"),
                                  r.threads);
}
} // namespace

int saguaro::runModelBench(const BenchOptions &o) {
  for (int b : o.bits)
    if (o.policy.empty() && !isWeightBits(b))
      return fail(std::string("--bits takes values among ") + kWeightBitsList + ", got " + std::to_string(b));
  std::vector<int> threadCounts = o.threads;
  if (threadCounts.empty()) {
    threadCounts.push_back(1);
    if (unsigned hw = std::thread::hardware_concurrency(); hw > 1)
      threadCounts.push_back(static_cast<int>(hw));
  }
  for (int t : threadCounts)
    if (t < 1 || t > 1024)
      return fail("--threads takes thread counts between 1 and 1024, got " + std::to_string(t));
  if (std::string problem = kvCacheProblem(o.kvCache); !problem.empty())
    return fail(problem);
  if (!llvm::sys::fs::exists(o.model))
    return fail(o.model + ": no such file or directory");
  std::string target = o.target.empty() ? saguaro::kernels::native_target() : o.target;
  std::vector<Result> results;
  for (int bits : o.bits)
    for (int threads : threadCounts) {
      auto r = benchOne(o, target, bits, threads);
      if (!r)
        return fail(llvm::toString(r.takeError()));
      results.push_back(std::move(*r));
    }
  if (o.image || o.audio) {
    const double preprocess = o.image ? preprocessMs() : logMelMs();
    if (!o.json) {
      if (o.image)
        printImageTable(o, target, results, preprocess);
      else
        printAudioTable(o, target, results, preprocess);
      return 0;
    }
    llvm::json::Array rows;
    for (Result &r : results) {
      llvm::json::Object row = std::move(r.measured);
      row["bits"] = r.bits;
      row["encoder_macs"] = r.imageMacs.products + r.imageMacs.attention;
      row["encoder_attention_macs"] = r.imageMacs.attention;
      rows.push_back(std::move(row));
    }
    llvm::json::Object report{{"target", target}, {"preprocess_ms", preprocess}, {"results", std::move(rows)}};
    if (o.audio) // the audio front-end's part: the log-mel frames of 30 s
      report["preprocess"] = "log-mel of 30 s";
    llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(report))) << "\n";
    return 0;
  }
  // Each bundle process measured the limits its own efficiencies use; the headline is the best of them.
  double bandwidth = 0, peak = 0;
  std::string isa;
  for (const Result &r : results) {
    bandwidth = std::max(bandwidth, number(r.measured, "bandwidth_gbs"));
    peak = std::max(peak, number(r.measured, "mac_peak_gops"));
    isa = r.measured.getString("mac_isa").value_or("").str();
  }
  if (!o.json) {
    printTable(o, target, results, bandwidth, peak, isa);
    return 0;
  }
  llvm::json::Array rows;
  for (Result &r : results) {
    llvm::json::Object row = std::move(r.measured);
    if (o.policy.empty())
      row["bits"] = r.bits;
    else
      row["policy"] = o.policy;
    row["threads"] = r.threads;
    row["target"] = target;
    row["kv_cache"] = o.kvCache;
    row["macs_per_token"] = r.macsPerToken;
    row["prefill_efficiency"] = r.prefillEfficiency;
    rows.push_back(std::move(row));
  }
  llvm::json::Object report{{"bandwidth_gbs", bandwidth}, {"mac_peak_gops", peak}, {"mac_isa", isa},
                            {"target", target},           {"kv_cache", o.kvCache},
                            {"results", std::move(rows)}};
  llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(report))) << "\n";
  return 0;
}
