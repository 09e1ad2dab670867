//===- BenchTokenizer.cpp - `saguaro bench tokenizer` ----------------------------------===//
//
// Encode throughput in MB/s of input text, best of several passes over the same lines, for
// Saguaro's runtime tokenizer and — when the source is a SentencePiece model — for Google's
// sentencepiece library, measured in one process so the ratio is meaningful.
//
//===------------------------------------------------------------------------------------===//
#include "compiler/driver/BenchTokenizer.h"
#include "compiler/driver/Tokenize.h"

#include "saguaro/blob.h"
#include "saguaro/tokenizer.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <sentencepiece_processor.h>

#include <chrono>
#include <functional>

using namespace saguaro;

namespace {
/// A mix of English prose, code, numbers and non-Latin scripts, repeated to about 1 MB.
std::vector<std::string> builtinLines() {
  const char *const samples[] = {
      "Once upon a time, there was a little girl named Lily who loved to play outside in the park.",
      "The quick brown fox jumps over the lazy dog; 1234567890 + 98765 = 1333332.",
      "def forward(self, x):\n    return self.proj(torch.relu(x)) * 0.5  # scale",
      "Les élèves étudient la physique quantique à l'université de Genève depuis 2019.",
      "人工智能正在改变世界，我们需要负责任地使用它。",
      "Привет, как дела? Сегодня хорошая погода для прогулки.",
      "   Leading spaces,\ttabs and trailing spaces   ",
      "Emoji 🚀🔥 and symbols ©®™ — “quotes” ‘single’ …",
  };
  std::vector<std::string> lines;
  size_t bytes = 0;
  for (size_t i = 0; bytes < (1u << 20); ++i) {
    lines.push_back(samples[i % (sizeof samples / sizeof *samples)]);
    bytes += lines.back().size();
  }
  return lines;
}

/// Best-of-`passes` throughput of `encode` over `lines` in MB/s (1 MB = 10^6 bytes).
double throughput(const std::vector<std::string> &lines, const std::function<size_t(const std::string &)> &encode,
                  size_t *tokens) {
  size_t bytes = 0;
  for (const std::string &l : lines)
    bytes += l.size();
  double best = 0;
  for (int pass = 0; pass < 3; ++pass) {
    size_t count = 0;
    auto start = std::chrono::steady_clock::now();
    for (const std::string &l : lines)
      count += encode(l);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    best = std::max(best, bytes / 1e6 / seconds);
    *tokens = count;
  }
  return best;
}

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
} // namespace

int saguaro::runTokenizerBench(const std::string &source, const std::string &textFile, bool json) {
  std::string err;
  std::unique_ptr<Blob> blob = openTokenizerBlob(source, &err);
  std::unique_ptr<Tokenizer> tok = blob ? make_tokenizer(*blob, &err) : nullptr;
  if (!tok) {
    llvm::errs() << "saguaro: " << err << "\n";
    return 1;
  }
  std::vector<std::string> lines;
  if (textFile.empty()) {
    lines = builtinLines();
  } else {
    auto file = llvm::MemoryBuffer::getFile(textFile);
    if (!file) {
      llvm::errs() << "saguaro: " << textFile << ": cannot read: " << file.getError().message() << "\n";
      return 1;
    }
    llvm::SmallVector<llvm::StringRef> parts;
    (*file)->getBuffer().split(parts, '\n', -1, false);
    for (llvm::StringRef p : parts)
      lines.push_back(p.str());
  }
  size_t bytes = 0;
  for (const std::string &l : lines)
    bytes += l.size();

  std::vector<int32_t> ids;
  size_t oursTokens = 0, spmTokens = 0;
  double ours = throughput(lines, [&](const std::string &l) {
    tok->encode(l, false, &ids, &err);
    return ids.size();
  }, &oursTokens);
  double spm = 0;
  sentencepiece::SentencePieceProcessor processor;
  bool haveSpm = endsWith(source, ".model") && processor.Load(source).ok();
  std::vector<int> spmIds;
  if (haveSpm)
    spm = throughput(lines, [&](const std::string &l) {
      processor.Encode(l, &spmIds).IgnoreError();
      return spmIds.size();
    }, &spmTokens);

  if (json) {
    llvm::json::Object out{{"source", source},       {"text_bytes", static_cast<int64_t>(bytes)},
                           {"lines", static_cast<int64_t>(lines.size())},
                           {"saguaro_mbs", ours},    {"saguaro_tokens", static_cast<int64_t>(oursTokens)}};
    if (haveSpm) {
      out["sentencepiece_mbs"] = spm;
      out["sentencepiece_tokens"] = static_cast<int64_t>(spmTokens);
      out["ratio"] = ours / spm;
    }
    llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(out))) << "\n";
    return 0;
  }
  llvm::outs() << llvm::formatv("tokenizer encode, {0} lines, {1} bytes, best of 3 passes\n", lines.size(), bytes);
  llvm::outs() << llvm::formatv("  {0,-14} {1,10:F1} MB/s  {2} tokens\n", "saguaro", ours, oursTokens);
  if (haveSpm)
    llvm::outs() << llvm::formatv("  {0,-14} {1,10:F1} MB/s  {2} tokens\n  ratio saguaro/sentencepiece: {3:F2}\n",
                                  "sentencepiece", spm, spmTokens, ours / spm);
  return 0;
}
