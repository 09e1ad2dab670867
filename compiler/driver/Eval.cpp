//===- Eval.cpp - `saguaro eval` -------------------------------------------------------===//
//
// One fp32 bundle is compiled and built; every configuration is a blob of the same tensors
// with each weight matrix replaced by its quantize-then-dequantize image (CQ, or the RTN
// baselines), so all configurations run the same generated program and differ only in the
// weights. CQ's dequantized image equals what the CQ kernels compute up to float rounding
// (test/e2e/test_cq_logits.py checks the kernels against it).
//
//===------------------------------------------------------------------------------------===//
#include "compiler/driver/Eval.h"

#include "blob.h"
#include "blob_writer.h"
#include "compiler/driver/BundleCache.h"
#include "compiler/driver/Tokenize.h"
#include "compiler/quantize/quantize.h"
#include "tokenizer.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>

using namespace saguaro;

namespace {
int fail(const std::string &message) {
  llvm::errs() << "saguaro: " << message << "\n";
  return 1;
}

/// Float32 [T, V] logits of a .npy written by the bundle program.
bool readNpy(const std::string &path, std::vector<float> &data, int64_t &rows, int64_t &cols) {
  auto file = llvm::MemoryBuffer::getFile(path, false, false);
  if (!file)
    return false;
  llvm::StringRef b = (*file)->getBuffer();
  if (b.size() < 10 || !b.starts_with("\x93NUMPY"))
    return false;
  uint16_t headerLen;
  std::memcpy(&headerLen, b.data() + 8, 2);
  llvm::StringRef header = b.substr(10, headerLen);
  size_t open = header.find("'shape': ("), comma = header.find(',', open);
  if (open == llvm::StringRef::npos || comma == llvm::StringRef::npos)
    return false;
  if (header.substr(open + 10, comma - open - 10).trim().getAsInteger(10, rows))
    return false;
  if (header.substr(comma + 1, header.find(')', comma) - comma - 1).trim().getAsInteger(10, cols))
    return false;
  size_t count = static_cast<size_t>(rows * cols);
  if (b.size() < 10 + headerLen + count * 4)
    return false;
  data.resize(count);
  std::memcpy(data.data(), b.data() + 10 + headerLen, count * 4);
  return true;
}

/// Runs the bundle program over one window of ids; false + err on failure.
bool logits(const std::string &exe, const std::string &blob, const std::string &ids, const std::string &out,
            std::vector<float> &data, int64_t &rows, int64_t &cols, std::string &err) {
  std::string log = out + ".log";
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(log), llvm::StringRef(log)};
  int rc = llvm::sys::ExecuteAndWait(exe, {exe, blob, "--logits", ids, "-o", out}, std::nullopt, redirects);
  if (rc != 0 || !readNpy(out, data, rows, cols)) {
    auto text = llvm::MemoryBuffer::getFile(log);
    err = "the bundle program failed on " + blob + (text ? ": " + (*text)->getBuffer().trim().str() : "");
    return false;
  }
  return true;
}

/// Log-softmax of one row.
void logSoftmax(const float *x, int64_t n, std::vector<double> &out) {
  double m = x[0];
  for (int64_t i = 1; i < n; ++i)
    m = std::max(m, static_cast<double>(x[i]));
  double sum = 0;
  for (int64_t i = 0; i < n; ++i)
    sum += std::exp(x[i] - m);
  double lse = m + std::log(sum);
  out.resize(n);
  for (int64_t i = 0; i < n; ++i)
    out[i] = x[i] - lse;
}

struct Metrics {
  double kl = 0, top1 = 0, nll = 0;
  int64_t count = 0;
};

/// Accumulates KL(ref || q), top-1 agreement and the NLL of the next token of `ids`.
void accumulate(const std::vector<float> &ref, const std::vector<float> &q, int64_t rows, int64_t vocab,
                const std::vector<int32_t> &ids, Metrics &m) {
  std::vector<double> lp, lq;
  for (int64_t t = 0; t + 1 < rows; ++t) {
    logSoftmax(&ref[t * vocab], vocab, lp);
    logSoftmax(&q[t * vocab], vocab, lq);
    double kl = 0;
    int64_t ap = 0, aq = 0;
    for (int64_t i = 0; i < vocab; ++i) {
      kl += std::exp(lp[i]) * (lp[i] - lq[i]);
      ap = lp[i] > lp[ap] ? i : ap;
      aq = lq[i] > lq[aq] ? i : aq;
    }
    m.kl += kl;
    m.top1 += ap == aq;
    m.nll -= lq[ids[t + 1]];
    ++m.count;
  }
}

/// Quantize-then-dequantize image of W[N][K] by `method`, and its stored bits per weight.
std::vector<float> fakeQuant(const std::string &method, const float *w, int64_t n, int64_t k, int bits,
                             double &storedBits) {
  if (method == "cq") {
    storedBits = quant::bits_per_weight(n, k, bits) * static_cast<double>(n * k);
    return quant::dequantize_cq(quant::quantize_cq(w, n, k, bits), n, k);
  }
  bool symmetric = method == "rtn-sym";
  int64_t groups = (k + 127) / 128;
  // fp16 scale per group; the asymmetric grid also stores an fp16 minimum.
  storedBits = static_cast<double>(n) * (static_cast<double>(k) * bits + groups * (symmetric ? 16.0 : 32.0));
  return quant::rtn(w, n, k, bits, symmetric, 128);
}
} // namespace

int saguaro::runEval(const EvalOptions &o) {
  for (const std::string &m : o.methods)
    if (m != "cq" && m != "rtn-sym" && m != "rtn-asym")
      return fail("unknown method '" + m + "' (cq, rtn-sym, rtn-asym)");
  for (int b : o.bits)
    if (b < 1 || b > 4)
      return fail("eval --bits takes 1, 2, 3 or 4, got " + std::to_string(b));
  auto textFile = llvm::MemoryBuffer::getFile(o.text);
  if (!textFile)
    return fail(o.text + ": cannot read: " + textFile.getError().message());
  if ((*textFile)->getBufferSize() == 0)
    return fail(o.text + ": the text is empty");

  CompileOptions co;
  co.model = o.model;
  co.tokenizer = o.tokenizer;
  auto bundle = cachedBundle(co);
  if (!bundle)
    return fail(llvm::toString(bundle.takeError()));
  auto exe = buildBundle(*bundle);
  if (!exe)
    return fail(llvm::toString(exe.takeError()));

  std::string err;
  std::unique_ptr<Blob> blob = Blob::open(*bundle + "/weights.sgw", &err);
  std::unique_ptr<Tokenizer> tok = blob ? make_tokenizer(*blob, &err) : nullptr;
  if (!tok)
    return fail(err);
  std::vector<int32_t> ids;
  if (!tok->encode((*textFile)->getBuffer(), tok->add_bos, &ids, &err))
    return fail(o.text + ": " + err);
  if (static_cast<int>(ids.size()) > o.maxTokens)
    ids.resize(o.maxTokens);
  if (ids.size() < 2)
    return fail(o.text + ": the text has fewer than two tokens");

  // Windows of at most 256 tokens (and the model's context), written once.
  llvm::SmallString<128> work;
  llvm::sys::fs::createUniqueDirectory("saguaro-eval", work);
  std::string dir = work.str().str();
  int64_t window = 256;
  if (auto manifest = llvm::MemoryBuffer::getFile(*bundle + "/manifest.json"))
    if (auto json = llvm::json::parse((*manifest)->getBuffer()))
      if (auto *m = json->getAsObject()->getObject("model"))
        window = std::min<int64_t>(window, m->getInteger("max_seq").value_or(window));
  std::vector<std::vector<int32_t>> windows;
  for (size_t at = 0; at + 1 < ids.size(); at += window)
    windows.emplace_back(ids.begin() + at, ids.begin() + std::min(ids.size(), at + window));
  std::vector<std::vector<float>> reference(windows.size());
  int64_t rows = 0, vocab = 0;
  Metrics fp32;
  for (size_t w = 0; w < windows.size(); ++w) {
    std::string path = dir + "/ids" + std::to_string(w) + ".txt";
    std::string text;
    for (int32_t id : windows[w])
      text += std::to_string(id) + " ";
    std::error_code ec;
    llvm::raw_fd_ostream(path, ec) << text << "\n";
    if (!logits(*exe, *bundle + "/weights.sgw", path, dir + "/ref.npy", reference[w], rows, vocab, err))
      return fail(err);
    accumulate(reference[w], reference[w], rows, vocab, windows[w], fp32);
  }

  struct Row {
    std::string method;
    int bits;
    double bpw;
    Metrics m;
  };
  std::vector<Row> results;
  for (const std::string &method : o.methods)
    for (int bits : o.bits) {
      std::vector<std::vector<float>> images;
      std::vector<BlobTensor> tensors;
      double storedBits = 0, weights = 0;
      for (const BlobEntry &e : blob->tensors()) {
        if (e.kind != "weight")
          continue;
        BlobTensor t{e.name, e.kind, e.layout, e.dtype, e.shape, e.data, e.bytes};
        if (e.dtype == DType::F32 && e.shape.size() == 2) { // every weight matrix, embeddings included
          double stored = 0;
          images.push_back(fakeQuant(method, static_cast<const float *>(e.data), e.shape[0], e.shape[1], bits, stored));
          t.data = images.back().data();
          storedBits += stored;
          weights += static_cast<double>(e.shape[0] * e.shape[1]);
        }
        tensors.push_back(std::move(t));
      }
      std::string path = dir + "/" + method + std::to_string(bits) + ".sgw";
      if (!write_blob(path, tensors, {}, &err))
        return fail(path + ": " + err);
      Row row{method, bits, weights ? storedBits / weights : 0, {}};
      for (size_t w = 0; w < windows.size(); ++w) {
        std::vector<float> q;
        if (!logits(*exe, path, dir + "/ids" + std::to_string(w) + ".txt", dir + "/q.npy", q, rows, vocab, err))
          return fail(err);
        accumulate(reference[w], q, rows, vocab, windows[w], row.m);
      }
      results.push_back(row);
      llvm::sys::fs::remove(path);
    }
  llvm::sys::fs::remove_directories(dir);

  auto ppl = [](const Metrics &m) { return std::exp(m.nll / m.count); };
  if (o.json) {
    llvm::json::Array rowsJson;
    for (const Row &r : results)
      rowsJson.push_back(llvm::json::Object{{"method", r.method}, {"bits", r.bits}, {"bpw", r.bpw},
                                            {"kl", r.m.kl / r.m.count}, {"top1", r.m.top1 / r.m.count},
                                            {"ppl", ppl(r.m)}});
    llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object{
                                               {"model", o.model},
                                               {"tokens", static_cast<int64_t>(fp32.count)},
                                               {"fp32_ppl", ppl(fp32)},
                                               {"results", std::move(rowsJson)}}))
                 << "\n";
    return 0;
  }
  llvm::outs() << llvm::formatv("{0}: {1} next-token predictions, fp32 perplexity {2:F3}\n", o.model, fp32.count,
                                ppl(fp32));
  llvm::outs() << llvm::formatv("{0,-10} {1,5} {2,8} {3,12} {4,8} {5,10}\n", "method", "bits", "bpw", "mean KL",
                                "top-1", "ppl");
  for (const Row &r : results)
    llvm::outs() << llvm::formatv("{0,-10} {1,5} {2,8:F3} {3,12:F6} {4,7:F1}% {5,10:F3}\n", r.method, r.bits, r.bpw,
                                  r.m.kl / r.m.count, 100.0 * r.m.top1 / r.m.count, ppl(r.m));
  return 0;
}
