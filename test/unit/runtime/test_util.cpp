// Test helpers (see test_util.h).
#include "test_util.h"

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>

#include "blob_writer.h"
#include "fake_model.h"

namespace saguaro::test {

std::vector<uint8_t> llama2c_tokenizer_bytes(const std::vector<std::pair<std::string, float>>& vocab,
                                             int32_t max_token_length) {
  std::vector<uint8_t> b;
  auto put = [&b](const void* p, size_t n) { b.insert(b.end(), static_cast<const uint8_t*>(p), static_cast<const uint8_t*>(p) + n); };
  put(&max_token_length, 4);
  for (const auto& [s, score] : vocab) {
    const int32_t len = static_cast<int32_t>(s.size());
    put(&score, 4);
    put(&len, 4);
    put(s.data(), s.size());
  }
  return b;
}

std::vector<uint8_t> tiny_llama2c_tokenizer() {
  std::vector<std::pair<std::string, float>> v = {{"<unk>", 0}, {"\n<s>\n", 0}, {"\n</s>\n", 0}};
  for (int i = 0; i < 256; ++i) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", i);
    v.emplace_back(name, 0.0f);
  }
  v.insert(v.end(), {{" ", -1}, {"a", -2}, {"b", -3}, {" a", -4}, {"ab", -5}});
  return llama2c_tokenizer_bytes(v, 6);
}

namespace {

/// The directories make_temp_dir made; removed depth-first (files before their directory) at exit.
struct TempDirs {
  std::mutex mu;
  std::vector<std::string> paths;
  ~TempDirs() {
    for (const std::string& p : paths)
      ::nftw(p.c_str(), [](const char* f, const struct stat*, int, struct FTW*) { return ::remove(f); }, 16,
             FTW_DEPTH | FTW_PHYS);
  }
};

TempDirs& temp_dirs() {
  static TempDirs dirs;
  return dirs;
}

}  // namespace

std::string make_temp_dir() {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base && *base ? base : "/tmp") + "/saguaro-rt-XXXXXX";
  if (!mkdtemp(tmpl.data())) return std::string();
  TempDirs& dirs = temp_dirs();
  std::lock_guard<std::mutex> lock(dirs.mu);
  dirs.paths.push_back(tmpl);
  return tmpl;
}

std::string write_fake_bundle(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& meta) {
  static const std::vector<float> table = fake_bigram_table();
  static const std::vector<uint8_t> tok = tiny_llama2c_tokenizer();
  std::vector<BlobTensor> ts(2);
  ts[0] = {"bigram", "weight", "row-major", DType::F32, {kFakeVocab, kFakeVocab}, table.data(), table.size() * 4};
  ts[1] = {"tokenizer.llama2c", "tokenizer", "row-major", DType::U8, {int64_t(tok.size())}, tok.data(), tok.size()};
  const std::string path = dir + "/weights.sgw";
  std::string err;
  std::vector<std::pair<std::string, std::string>> all = {{"model.name", "fake-bigram"}, {"tokenizer.kind", "llama2c"}};
  all.insert(all.end(), meta.begin(), meta.end());
  if (!write_blob(path, ts, all, &err)) return "";
  return path;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string shared_dir() {
  struct stat st;
  return ::stat(SAGUARO_SHARED_DIR "/data", &st) == 0 ? std::string(SAGUARO_SHARED_DIR) : std::string();
}

std::string run_command(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[1 << 16];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  pclose(p);
  return out;
}

}  // namespace saguaro::test
