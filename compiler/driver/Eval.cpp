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

#include "blob_writer.h"
#include "codegen/kernels/include/saguaro/kernels/cq_format.h"
#include "compiler/driver/BundleCache.h"
#include "compiler/driver/Calibrate.h"
#include "compiler/driver/ProgramRun.h"
#include "compiler/driver/Tokenize.h"
#include "compiler/quantize/quantize.h"
#include "saguaro/blob.h"
#include "saguaro/tokenizer.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>

using namespace saguaro;

namespace {
int fail(const std::string &message) {
  llvm::errs() << "saguaro: " << message << "\n";
  return 1;
}

/// Runs the bundle program over one window of ids; false + err on failure.
bool logits(const std::string &exe, const std::string &blob, const std::string &ids, const std::string &out,
            std::vector<float> &data, int64_t &rows, int64_t &cols, std::string &err) {
  std::string log = out + ".log";
  int rc = runRedirected(exe, {exe, blob, "--logits", ids, "-o", out}, std::nullopt, log);
  if (rc != 0 || !readNpyF32(out, data, rows, cols))
    return err = "the bundle program failed on " + blob + ": " + readLog(log), false;
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
  int64_t correct = 0, tasks = 0; // greedy answers that match, of the task questions asked
};

/// One task question: the prompt and the expected answer.
struct Task {
  std::string prompt, answer;
};

/// Tasks of a file of lines `PROMPT<TAB>ANSWER`, with `\n` in the prompt standing for a newline.
bool readTasks(const std::string &path, std::vector<Task> &tasks, std::string &err) {
  auto file = llvm::MemoryBuffer::getFile(path);
  if (!file)
    return err = path + ": cannot read: " + file.getError().message(), false;
  llvm::SmallVector<llvm::StringRef> lines;
  (*file)->getBuffer().split(lines, '\n', -1, false);
  for (size_t i = 0; i < lines.size(); ++i) {
    auto [prompt, answer] = lines[i].split('\t');
    if (answer.empty())
      return err = path + ": line " + std::to_string(i + 1) + " is not PROMPT<TAB>ANSWER", false;
    std::string p;
    for (size_t k = 0; k < prompt.size(); ++k)
      if (prompt[k] == '\\' && k + 1 < prompt.size() && prompt[k + 1] == 'n')
        p += '\n', ++k;
      else
        p += prompt[k];
    tasks.push_back({p, answer.trim().str()});
  }
  if (tasks.empty())
    return err = path + ": no tasks", false;
  return true;
}

/// Greedy answers of the program on `blob` to every task; counts the exact (whitespace-trimmed) matches.
bool answerTasks(const std::string &exe, const std::string &blob, const std::vector<Task> &tasks,
                 const std::string &dir, Metrics &m, std::string &err) {
  std::string out = dir + "/answer.txt", log = dir + "/answer.log";
  for (const Task &t : tasks) {
    int rc = runRedirected(exe, {exe, blob, "-p", t.prompt, "-n", "128", "-t", "0"}, llvm::StringRef(out), log);
    auto text = llvm::MemoryBuffer::getFile(out);
    if (rc != 0 || !text)
      return err = "the bundle program failed to answer a task on " + blob, false;
    llvm::StringRef printed = (*text)->getBuffer();
    if (printed.starts_with(t.prompt))
      printed = printed.drop_front(t.prompt.size());
    m.correct += printed.trim() == t.answer;
    ++m.tasks;
  }
  return true;
}

/// One prediction's KL(ref || q), top-1 agreement and the NLL of `next` under q.
void accumulateRow(const float *ref, const float *q, int64_t vocab, int32_t next, Metrics &m) {
  std::vector<double> lp, lq;
  logSoftmax(ref, vocab, lp);
  logSoftmax(q, vocab, lq);
  double kl = 0;
  int64_t ap = 0, aq = 0;
  for (int64_t i = 0; i < vocab; ++i) {
    kl += std::exp(lp[i]) * (lp[i] - lq[i]);
    ap = lp[i] > lp[ap] ? i : ap;
    aq = lq[i] > lq[aq] ? i : aq;
  }
  m.kl += kl;
  m.top1 += ap == aq;
  m.nll -= lq[next];
  ++m.count;
}

/// Accumulates the next-token predictions within each sequence, of tokens from index firstScored[s] on;
/// `ref` and `q` hold the logits rows of all sequences one after another.
void accumulate(const std::vector<float> &ref, const std::vector<float> &q, int64_t vocab,
                const std::vector<std::vector<int32_t>> &sequences, const std::vector<size_t> &firstScored,
                Metrics &m) {
  int64_t row = 0;
  for (size_t s = 0; s < sequences.size(); ++s) {
    const std::vector<int32_t> &ids = sequences[s];
    for (size_t t = firstScored[s] - 1; t + 1 < ids.size(); ++t)
      accumulateRow(&ref[(row + t) * vocab], &q[(row + t) * vocab], vocab, ids[t + 1], m);
    row += static_cast<int64_t>(ids.size());
  }
}

/// Quantize-then-dequantize image of W[N][K] by `method`, and its stored bits. `hessian` (XᵀX of the
/// matrix's input, or null) gives CQ its error feedback and GPTQ its objective; a matrix without one
/// (an embedding table that is only gathered) gets plain CQ, and RTN under GPTQ; `q4_0` is llama.cpp's Q4_0 (a
/// 4-bit format, whatever `bits` below 16). 16 bits is W rounded to IEEE binary16 (`compile --bits 16`), whatever the
/// method.
std::vector<float> fakeQuant(const std::string &method, const float *w, int64_t n, int64_t k, int bits,
                             const std::vector<float> *hessian, std::optional<float> damp, double &storedBits) {
  if (bits == 16) {
    storedBits = 16.0 * static_cast<double>(n * k);
    std::vector<float> image(w, w + n * k);
    for (float &x : image)
      x = kernels::cq::half_to_float(kernels::cq::float_to_half(x));
    return image;
  }
  if (method == "cq") {
    storedBits = quant::bits_per_weight(n, k, bits) * static_cast<double>(n * k);
    return quant::dequantize_cq(hessian ? quant::cq_with_error_feedback(w, n, k, bits, *hessian, damp)
                                        : quant::quantize_cq(w, n, k, bits),
                                n, k);
  }
  if (method == "q4_0") { // llama.cpp's format: an fp16 scale and 32 four-bit codes per block of 32
    storedBits = static_cast<double>(n) * static_cast<double>((k + 31) / 32) * (16.0 + 4.0 * 32);
    return quant::q4_0(w, n, k);
  }
  bool symmetric = method == "rtn-sym";
  int64_t groups = (k + 127) / 128;
  // fp16 scale per group; the asymmetric grid also stores an fp16 minimum.
  storedBits = static_cast<double>(n) * (static_cast<double>(k) * bits + groups * (symmetric ? 16.0 : 32.0));
  if (method == "gptq" && hessian)
    return quant::gptq(w, n, k, bits, *hessian, 128, quant::damp_for(damp, bits));
  return quant::rtn(w, n, k, bits, symmetric, 128);
}
/// The fp32 program, its blob, the evaluation sequences and their fp32 logits.
struct EvalContext {
  std::string exe, blobPath, dir, idsPath;
  std::vector<Task> tasks;
  std::unique_ptr<Blob> blob;
  std::string scoreAfter;                      // when set, only tokens after it in each document are scored
  std::vector<std::vector<int32_t>> sequences; // each fed from position 0 (one line of idsPath)
  std::vector<size_t> firstScored;             // per sequence: index of the first token whose prediction counts
  std::vector<float> reference;                // logits rows of all sequences, in order
  HessianMap hessians; // from --calibration: weight name -> XᵀX of its input
  std::optional<float> damp; // error feedback's damping, relative to the mean of diag(H); unset: per-bits default
  int64_t vocab = 0;
  Metrics fp32;
  ~EvalContext() {
    if (!dir.empty())
      llvm::sys::fs::remove_directories(dir);
  }
};

/// The documents of a text: pieces separated by blank lines, each keeping its own last newline.
std::vector<llvm::StringRef> documents(llvm::StringRef text) {
  std::vector<llvm::StringRef> docs;
  while (!text.empty()) {
    size_t end = text.find("\n\n");
    llvm::StringRef doc = text.substr(0, end == llvm::StringRef::npos ? text.size() : end + 1);
    if (!doc.trim().empty())
      docs.push_back(doc);
    text = end == llvm::StringRef::npos ? llvm::StringRef() : text.drop_front(end + 1).ltrim('\n');
  }
  return docs;
}

/// Compiles and builds the fp32 model, tokenizes `text` (each document — blank-line separated — as its
/// own sequence from position 0, as the model saw its training examples; or, when `text` is empty,
/// `syntheticTokens` deterministic ids), and computes the reference logits; "" or the error. With
/// c.scoreAfter, a document is tokenized as two pieces, up to and including the marker and after it, and
/// only the predictions of tokens after the marker count (documents without it are left out).
std::string prepare(const std::string &model, const std::string &tokenizer, const std::string &text,
                    int maxTokens, int syntheticTokens, EvalContext &c) {
  std::unique_ptr<llvm::MemoryBuffer> textBuffer; // read (and bad text reported) before anything is built
  if (!text.empty()) {
    auto file = llvm::MemoryBuffer::getFile(text);
    if (!file)
      return text + ": cannot read: " + file.getError().message();
    if ((*file)->getBufferSize() == 0)
      return text + ": the text is empty";
    textBuffer = std::move(*file);
  }
  CompileOptions co; // the float32 reference program: float32 weights (replaced per configuration) and KV cache
  co.model = model;
  co.tokenizer = tokenizer;
  co.kvCache = "f32";
  auto bundle = cachedBundle(co);
  if (!bundle)
    return llvm::toString(bundle.takeError());
  auto exe = buildBundle(*bundle);
  if (!exe)
    return llvm::toString(exe.takeError());
  c.exe = *exe;
  c.blobPath = *bundle + "/weights.sgw";
  std::string err;
  c.blob = Blob::open(c.blobPath, &err);
  if (!c.blob)
    return err;
  int64_t window = 256, vocab = 0;
  auto manifest = readBundleManifest(*bundle);
  if (!manifest)
    return llvm::toString(manifest.takeError());
  if (const llvm::json::Object *m = manifest->getObject("model")) {
    window = std::min<int64_t>(window, m->getInteger("max_seq").value_or(window));
    vocab = m->getInteger("vocab").value_or(0);
  }
  // Sequences: each document's ids cut into windows of at most `window` tokens, `maxTokens` in all.
  std::vector<std::pair<std::vector<int32_t>, size_t>> docs; // ids and the index of the first scored token
  if (textBuffer) {
    std::unique_ptr<Tokenizer> tok = make_tokenizer(*c.blob, &err);
    if (!tok)
      return err;
    for (llvm::StringRef doc : documents(textBuffer->getBuffer())) {
      size_t marker = c.scoreAfter.empty() ? 0 : doc.find(c.scoreAfter);
      if (marker == llvm::StringRef::npos)
        continue;
      size_t split = c.scoreAfter.empty() ? doc.size() : marker + c.scoreAfter.size();
      std::vector<int32_t> ids, rest;
      if (!tok->encode(doc.substr(0, split), tok->add_bos, &ids, &err) ||
          !tok->encode(doc.substr(split), false, &rest, &err))
        return text + ": " + err;
      size_t first = c.scoreAfter.empty() ? 1 : ids.size();
      ids.insert(ids.end(), rest.begin(), rest.end());
      docs.push_back({std::move(ids), std::max<size_t>(first, 1)});
    }
  } else {
    docs.emplace_back();
    docs.back().second = 1;
    for (int i = 0; i < syntheticTokens && vocab > 0; ++i)
      docs.back().first.push_back(static_cast<int32_t>((i * 37 + 11) % vocab));
  }
  int64_t budget = maxTokens;
  for (const auto &[ids, first] : docs)
    for (size_t at = 0; at + 1 < ids.size() && budget >= 2; at += window) {
      size_t len = std::min<size_t>({ids.size() - at, static_cast<size_t>(window), static_cast<size_t>(budget)});
      size_t scored = first > at ? first - at : 1;
      if (scored >= len)
        continue; // nothing to score in this window
      c.sequences.emplace_back(ids.begin() + at, ids.begin() + at + len);
      c.firstScored.push_back(scored);
      budget -= static_cast<int64_t>(len);
    }
  if (c.sequences.empty())
    return text + (c.scoreAfter.empty() ? ": the text has fewer than two tokens"
                                        : ": no document has tokens after '" + c.scoreAfter + "'");

  llvm::SmallString<128> work;
  llvm::sys::fs::createUniqueDirectory("saguaro-eval", work);
  c.dir = work.str().str();
  c.idsPath = c.dir + "/ids.txt";
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(c.idsPath, ec);
    for (const std::vector<int32_t> &ids : c.sequences) {
      for (int32_t id : ids)
        os << id << ' ';
      os << '\n';
    }
  }
  int64_t rows = 0;
  if (!logits(c.exe, c.blobPath, c.idsPath, c.dir + "/ref.npy", c.reference, rows, c.vocab, err))
    return err;
  accumulate(c.reference, c.reference, c.vocab, c.sequences, c.firstScored, c.fp32);
  return "";
}

/// Metrics of the program with every weight matrix replaced by its `method` image at the bits
/// `bitsFor` gives it (0 keeps it in float32); `bpw` gets the stored bits per quantized weight.
std::string measure(EvalContext &c, const std::string &method, const std::function<int(const BlobEntry &)> &bitsFor,
                    Metrics &m, double &bpw) {
  std::vector<std::vector<float>> images;
  std::vector<BlobTensor> tensors;
  double storedBits = 0, weights = 0;
  for (const BlobEntry &e : c.blob->tensors()) {
    BlobTensor t{e.name, e.kind, e.layout, e.dtype, e.shape, e.data, e.bytes};
    // Weight matrices (embeddings included) get their image; tokenizer and chat template stay as they are.
    int bits = e.kind == "weight" && e.dtype == DType::F32 && e.shape.size() == 2 ? bitsFor(e) : 0;
    if (bits > 0) {
      double stored = 0;
      auto h = c.hessians.find(e.name);
      const std::vector<float> *hessian = h == c.hessians.end() ? nullptr : &h->second; // checked by Calibrate
      images.push_back(
          fakeQuant(method, static_cast<const float *>(e.data), e.shape[0], e.shape[1], bits, hessian, c.damp, stored));
      t.data = images.back().data();
      storedBits += stored;
      weights += static_cast<double>(e.shape[0] * e.shape[1]);
    }
    tensors.push_back(std::move(t));
  }
  std::string path = c.dir + "/config.sgw", err;
  std::vector<std::pair<std::string, std::string>> meta(c.blob->metadata().begin(), c.blob->metadata().end());
  std::sort(meta.begin(), meta.end());
  if (!write_blob(path, tensors, meta, &err))
    return path + ": " + err;
  bpw = weights ? storedBits / weights : 0;
  m = Metrics();
  int64_t rows = 0, vocab = 0;
  std::vector<float> q;
  if (!logits(c.exe, path, c.idsPath, c.dir + "/q.npy", q, rows, vocab, err))
    return err;
  if (q.size() != c.reference.size())
    return path + ": the program returned " + std::to_string(rows) + " logits rows for the fp32 program's " +
           std::to_string(c.reference.size() / std::max<int64_t>(c.vocab, 1));
  accumulate(c.reference, q, vocab, c.sequences, c.firstScored, m);
  if (!c.tasks.empty() && !answerTasks(c.exe, path, c.tasks, c.dir, m, err))
    return err;
  llvm::sys::fs::remove(path);
  return "";
}

/// Bits per matrix meeting an average of `budget` stored bits per weight: each matrix's KL when it
/// alone is quantized at 2, 3 and 4 bits, then greedy upgrades from 2 bits by KL saved per extra
/// stored bit while the budget allows.
std::string allocate(EvalContext &c, double budget, std::vector<std::pair<std::string, int64_t>> &policy) {
  struct Matrix {
    std::string name;
    int64_t n, k;
    double kl[5] = {0, 0, 0, 0, 0};
    int bits = 2;
    double cost(int b) const { return quant::bits_per_weight(n, k, b) * static_cast<double>(n * k); }
  };
  std::vector<Matrix> matrices;
  for (const BlobEntry &e : c.blob->tensors())
    if (e.kind == "weight" && e.dtype == DType::F32 && e.shape.size() == 2)
      matrices.push_back({e.name, e.shape[0], e.shape[1]});
  double weights = 0, total = 0;
  for (Matrix &mat : matrices) {
    for (int b = 2; b <= 4; ++b) {
      Metrics m;
      double bpw = 0;
      std::string err = measure(c, "cq", [&](const BlobEntry &e) { return e.name == mat.name ? b : 0; }, m, bpw);
      if (!err.empty())
        return err;
      mat.kl[b] = m.count ? m.kl / m.count : 0;
    }
    weights += static_cast<double>(mat.n * mat.k);
    total += mat.cost(2);
  }
  if (total > budget * weights)
    return "--bpw " + std::to_string(budget) + " is below what 2-bit codes need (" +
           std::to_string(total / weights) + " bits per weight)";
  for (;;) {
    Matrix *best = nullptr;
    double bestRate = -1;
    for (Matrix &mat : matrices) {
      if (mat.bits == 4)
        continue;
      double extra = mat.cost(mat.bits + 1) - mat.cost(mat.bits);
      double rate = (mat.kl[mat.bits] - mat.kl[mat.bits + 1]) / extra;
      if (total + extra <= budget * weights && rate > bestRate)
        best = &mat, bestRate = rate;
    }
    if (!best)
      break;
    total += best->cost(best->bits + 1) - best->cost(best->bits);
    ++best->bits;
  }
  policy.clear();
  for (const Matrix &mat : matrices)
    policy.push_back({mat.name, mat.bits});
  return "";
}
} // namespace

llvm::Error saguaro::allocateBits(const std::string &model, const std::string &tokenizer,
                                  const std::string &calibration, double bpw,
                                  std::vector<std::pair<std::string, int64_t>> &policy) {
  EvalContext c;
  std::string err = prepare(model, tokenizer, calibration, 512, 256, c);
  if (err.empty())
    err = allocate(c, bpw, policy);
  if (!err.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(), err);
  return llvm::Error::success();
}

int saguaro::runEval(const EvalOptions &o) {
  for (const std::string &m : o.methods)
    if (m != "cq" && m != "gptq" && m != "rtn-sym" && m != "rtn-asym" && m != "q4_0")
      return fail("unknown method '" + m + "' (cq, gptq, rtn-sym, rtn-asym, q4_0)");
    else if (m == "gptq" && o.calibration.empty())
      return fail("--method gptq needs --calibration FILE (its Hessians come from calibration text)");
  for (int b : o.bits)
    if ((b < 1 || b > 4) && b != 16)
      return fail("eval --bits takes 1, 2, 3, 4 or 16 (binary16), got " + std::to_string(b));
  if (o.text.empty())
    return fail("eval needs --text FILE");
  EvalContext c;
  c.scoreAfter = o.scoreAfter;
  c.damp = o.damp;
  std::string err;
  if (!o.tasks.empty() && !readTasks(o.tasks, c.tasks, err))
    return fail(err);
  err = prepare(o.model, o.tokenizer, o.text, o.maxTokens, 0, c);
  if (!err.empty())
    return fail(err);
  if (!c.tasks.empty() && !answerTasks(c.exe, c.blobPath, c.tasks, c.dir, c.fp32, err))
    return fail(err);
  if (!o.calibration.empty()) {
    CompileOptions model;
    model.model = o.model;
    model.tokenizer = o.tokenizer;
    if (auto e = measureHessians(model, o.calibration, c.hessians))
      return fail(llvm::toString(std::move(e)));
  }

  struct Row {
    std::string method;
    std::string bits;
    double bpw;
    Metrics m;
  };
  std::vector<Row> results;
  for (const std::string &method : o.methods)
    for (int bits : method == "q4_0" ? std::vector<int>{4} : o.bits) { // Q4_0 has one width: one row
      Row row{method, std::to_string(bits), 0, {}};
      err = measure(c, method, [bits](const BlobEntry &) { return bits; }, row.m, row.bpw);
      if (!err.empty())
        return fail(err);
      results.push_back(row);
    }
  if (o.bpw > 0) {
    std::vector<std::pair<std::string, int64_t>> policy;
    EvalContext calib;
    err = prepare(o.model, o.tokenizer, "", 512, 256, calib);
    if (err.empty())
      err = allocate(calib, o.bpw, policy);
    if (!err.empty())
      return fail(err);
    std::map<std::string, int64_t> bitsOf(policy.begin(), policy.end());
    Row row{"cq", "mixed", 0, {}};
    err = measure(c, "cq", [&](const BlobEntry &e) { return static_cast<int>(bitsOf[e.name]); }, row.m, row.bpw);
    if (!err.empty())
      return fail(err);
    results.push_back(row);
  }
  Metrics &fp32 = c.fp32;

  auto ppl = [](const Metrics &m) { return std::exp(m.nll / m.count); };
  if (o.json) {
    llvm::json::Array rowsJson;
    for (const Row &r : results) {
      llvm::json::Object row{{"method", r.method}, {"bpw", r.bpw}, {"kl", r.m.kl / r.m.count},
                             {"top1", r.m.top1 / r.m.count}, {"ppl", ppl(r.m)}};
      if (r.m.tasks)
        row["accuracy"] = static_cast<double>(r.m.correct) / r.m.tasks;
      if (r.bits == "mixed")
        row["bits"] = "mixed";
      else
        row["bits"] = std::stoi(r.bits);
      rowsJson.push_back(std::move(row));
    }
    llvm::json::Object report{{"model", o.model},
                              {"tokens", static_cast<int64_t>(fp32.count)},
                              {"fp32_ppl", ppl(fp32)},
                              {"calibrated", !c.hessians.empty()},
                              {"results", std::move(rowsJson)}};
    if (fp32.tasks)
      report["fp32_accuracy"] = static_cast<double>(fp32.correct) / fp32.tasks;
    llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(report))) << "\n";
    return 0;
  }
  llvm::outs() << llvm::formatv("{0}: {1} next-token predictions, fp32 perplexity {2:F3}\n", o.model, fp32.count,
                                ppl(fp32));
  auto accuracy = [](const Metrics &m) {
    return m.tasks ? llvm::formatv("{0,8:F1}%", 100.0 * m.correct / m.tasks).str() : std::string();
  };
  if (fp32.tasks)
    llvm::outs() << "fp32 task accuracy" << accuracy(fp32) << " of " << fp32.tasks << " questions\n";
  llvm::outs() << llvm::formatv("{0,-10} {1,5} {2,8} {3,12} {4,8} {5,10}{6}\n", "method", "bits", "bpw", "mean KL",
                                "top-1", "ppl", fp32.tasks ? "  task acc" : "");
  for (const Row &r : results)
    llvm::outs() << llvm::formatv("{0,-10} {1,5} {2,8:F3} {3,12:F6} {4,7:F1}% {5,10:F3}{6}\n", r.method, r.bits, r.bpw,
                                  r.m.kl / r.m.count, 100.0 * r.m.top1 / r.m.count, ppl(r.m), accuracy(r.m));
  return 0;
}
