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
#include "compiler/driver/ProgramRun.h"
#include "compiler/import/ModelDesc.h"
#include "saguaro/kernels/cpu_features.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
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

/// One row of the report.
struct Result {
  int bits = 0, threads = 0;
  llvm::json::Object measured; // what the bundle program wrote
  double macsPerToken = 0, prefillEfficiency = 0;
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
  int rc = runRedirected(*exe,
                         {*exe, *bundle, "--bench", "-o", outPath, "--threads", std::to_string(threads),
                          "--prompt-tokens", std::to_string(o.promptTokens)},
                         std::nullopt, log);
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
  auto macs = macsPerToken(*bundle);
  if (!macs)
    return macs.takeError();
  Result r;
  r.bits = bits;
  r.threads = threads;
  r.measured = std::move(*json->getAsObject());
  r.macsPerToken = *macs;
  double peak = number(r.measured, "mac_peak_gops");
  r.prefillEfficiency = peak > 0 ? number(r.measured, "prefill_tps") * *macs / (peak * 1e9) : 0;
  return r;
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
