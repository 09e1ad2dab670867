// SentencePiece tokenizer.model / GGUF vocab → tokenizer.spm table → runtime encode/decode: llama.cpp's test
// vectors, round trips, the sentencepiece library as an oracle (BPE and a unigram model trained at test time),
// and damaged files.
#include "tokenizer_spm.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "SpmImport.h"
#include "test_util.h"

namespace saguaro {
namespace {

std::string llama_dir() {
  const std::string shared = test::shared_dir();
  return shared.empty() ? "" : shared + "/data/tokenizers/llama-spm";
}

#define REQUIRE_LLAMA_DIR()                                                                          \
  if (llama_dir().empty()) GTEST_SKIP() << "SKIP: " SAGUARO_SHARED_DIR "/data is absent (needs the " \
                                           "../shared test material beside the checkout)"

// Imports a tokenizer.model / GGUF and builds the runtime tokenizer from the table, as make_tokenizer() does.
std::unique_ptr<SpmTokenizer> load(const std::string& path, std::string* err) {
  std::vector<uint8_t> bytes;
  std::vector<std::pair<std::string, std::string>> meta;
  if (!import_spm_tokenizer(path, &bytes, &meta, err)) return nullptr;
  auto t = SpmTokenizer::create(bytes.data(), bytes.size(), err);
  for (const auto& kv : meta) {
    if (kv.first == "tokenizer.bos_id") t->bos_id = std::atoi(kv.second.c_str());
    if (kv.first == "tokenizer.eos_id") t->eos_id = std::atoi(kv.second.c_str());
    if (kv.first == "tokenizer.add_bos") t->add_bos = kv.second == "1";
  }
  return t;
}

std::vector<int32_t> encode(SpmTokenizer& t, const std::string& text, bool add_bos = false) {
  std::vector<int32_t> ids;
  std::string err;
  EXPECT_TRUE(t.encode(text, add_bos, &ids, &err)) << err;
  return ids;
}

std::string decode(const SpmTokenizer& t, const std::vector<int32_t>& ids) {
  std::string s;
  int32_t prev = -1;
  for (int32_t id : ids) s += t.piece(prev, id), prev = id;
  return s;
}

std::string join(const std::vector<int32_t>& ids) {
  std::string s;
  for (int32_t id : ids) s += (s.empty() ? "" : " ") + std::to_string(id);
  return s;
}

// llama.cpp's test-tokenizer-0: inputs separated by "\n__ggml_vocab_test__\n" (so each input keeps its own
// newlines), one line of ids per input in .out, encoded without BOS.
std::vector<std::pair<std::string, std::string>> llama_vectors() {
  const std::string inp = test::read_file(llama_dir() + "/ggml-vocab-llama-spm.gguf.inp");
  const std::string out = test::read_file(llama_dir() + "/ggml-vocab-llama-spm.gguf.out");
  const std::string sep = "\n__ggml_vocab_test__\n";
  std::vector<std::string> inputs, outputs;
  for (size_t pos = 0; pos < inp.size();) {
    const size_t next = inp.find(sep, pos);
    inputs.push_back(inp.substr(pos, next == std::string::npos ? std::string::npos : next - pos));
    pos = next == std::string::npos ? inp.size() : next + sep.size();
  }
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) outputs.push_back(line.empty() ? line : line.substr(1));
  EXPECT_EQ(inputs.size(), outputs.size());
  std::vector<std::pair<std::string, std::string>> v;
  for (size_t i = 0; i < inputs.size() && i < outputs.size(); ++i) v.emplace_back(inputs[i], outputs[i]);
  return v;
}

void check_llama_vectors(const std::string& file) {
  std::string err;
  auto t = load(llama_dir() + "/" + file, &err);
  ASSERT_TRUE(t) << err;
  const auto vectors = llama_vectors();
  ASSERT_GE(vectors.size(), 30u);
  int passed = 0;
  for (const auto& v : vectors) {
    const auto ids = encode(*t, v.first);
    EXPECT_EQ(join(ids), v.second) << "input: '" << v.first << "'";
    EXPECT_EQ(decode(*t, ids), v.first);
    passed += join(ids) == v.second && decode(*t, ids) == v.first;
  }
  std::printf("[ %s ] %d/%zu llama.cpp vectors exact and round-tripped\n", file.c_str(), passed, vectors.size());
}

TEST(SpmTokenizer, LlamaVectorsFromTokenizerModel) {
  REQUIRE_LLAMA_DIR();
  check_llama_vectors("llama2-tokenizer.model");
}

TEST(SpmTokenizer, LlamaVectorsFromGgufVocab) {
  REQUIRE_LLAMA_DIR();
  check_llama_vectors("ggml-vocab-llama-spm.gguf");
}

TEST(SpmTokenizer, ModelAndGgufGiveTheSameTableAndMetadata) {
  REQUIRE_LLAMA_DIR();
  std::vector<uint8_t> a, b;
  std::vector<std::pair<std::string, std::string>> ma, mb;
  std::string err;
  ASSERT_TRUE(import_spm_tokenizer(llama_dir() + "/llama2-tokenizer.model", &a, &ma, &err)) << err;
  ASSERT_TRUE(import_spm_tokenizer(llama_dir() + "/ggml-vocab-llama-spm.gguf", &b, &mb, &err)) << err;
  EXPECT_EQ(ma, mb);
  EXPECT_EQ(ma[0], std::make_pair(std::string("tokenizer.kind"), std::string("spm")));
  auto t = load(llama_dir() + "/llama2-tokenizer.model", &err);
  EXPECT_EQ(t->bos_id, 1);
  EXPECT_EQ(t->eos_id, 2);
  EXPECT_TRUE(t->add_bos);
  EXPECT_EQ(join(encode(*t, "Hello world", true)), "1 15043 3186");
  EXPECT_EQ(decode(*t, {1, 15043, 3186, 2}), "Hello world");  // BOS/EOS print nothing, the dummy space is dropped
  EXPECT_EQ(decode(*t, {0}), " \xE2\x81\x87 ");              // unk prints as sentencepiece does
}

// Random text mixing the character classes real prompts have. kWide adds arbitrary Unicode scalar values; kMeta
// allows U+2581 "▁" itself (which sentencepiece decodes to a space, so such text cannot round-trip).
enum TextMode { kCommon = 0, kWide = 1, kMeta = 2 };
std::string random_text(std::mt19937& rng, int mode) {
  static const char* const kPieces[] = {" ", "  ", "\t", "\n", "a", "Z", "hello", "The", "ing", "0", "42", "2024",
                                        ".", ",", "!", "?", "'", "\"", "-", "(", ")", "#", "/", "é", "ü", "ñ", "Ø",
                                        "ß", "ça", "日本", "語", "中文", "한국", "🦙", "😀", "👍🏽", "é", "\xC2\xA0", "fox", "<tool>", "▁"};
  const auto cp_utf8 = [](uint32_t c) {
    std::string s;
    if (c < 0x80) s += char(c);
    else if (c < 0x800) s += char(0xC0 | c >> 6), s += char(0x80 | (c & 0x3F));
    else if (c < 0x10000) s += char(0xE0 | c >> 12), s += char(0x80 | (c >> 6 & 0x3F)), s += char(0x80 | (c & 0x3F));
    else s += char(0xF0 | c >> 18), s += char(0x80 | (c >> 12 & 0x3F)), s += char(0x80 | (c >> 6 & 0x3F)), s += char(0x80 | (c & 0x3F));
    return s;
  };
  std::string s;
  const int n = std::uniform_int_distribution<int>(0, 24)(rng);
  for (int i = 0; i < n; ++i) {
    const int kind = std::uniform_int_distribution<int>(0, mode & kWide ? 9 : 7)(rng);
    if (kind < 7) {
      s += kPieces[std::uniform_int_distribution<size_t>(0, std::size(kPieces) - (mode & kMeta ? 1 : 2))(rng)];
    } else if (kind == 7) {
      s += char(std::uniform_int_distribution<int>(0x20, 0x7E)(rng));
    } else {  // any scalar value: CJK, rare scripts, astral planes
      uint32_t c = std::uniform_int_distribution<uint32_t>(1, kind == 8 ? 0xFFFF : 0x10FFFF)(rng);
      if ((c >= 0xD800 && c < 0xE000) || (c == 0x2581 && !(mode & kMeta))) c -= 0x1000;
      s += cp_utf8(c);
    }
  }
  return s;
}

TEST(SpmTokenizer, RandomUtf8RoundTrips) {
  REQUIRE_LLAMA_DIR();
  std::string err;
  auto t = load(llama_dir() + "/llama2-tokenizer.model", &err);
  ASSERT_TRUE(t) << err;
  std::mt19937 rng(1234);
  int passed = 0;
  const int n = 2000;
  for (int i = 0; i < n; ++i) {
    const std::string s = random_text(rng, kWide);
    const std::string back = decode(*t, encode(*t, s, true));
    EXPECT_EQ(back, s);
    passed += back == s;
  }
  std::printf("[ round trip ] %d/%d random UTF-8 strings\n", passed, n);
}

// JSON string literal of UTF-8 text (for the oracle's input file).
std::string json_string(const std::string& s) {
  std::string r = "\"";
  for (unsigned char c : s) {
    char buf[8];
    if (c == '"' || c == '\\') r += '\\', r += char(c);
    else if (c < 0x20) std::snprintf(buf, sizeof buf, "\\u%04x", c), r += buf;
    else r += char(c);
  }
  return r + "\"";
}

std::string run(const std::string& cmd, int* status) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return *status = -1, out;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  *status = ::pclose(p);
  return out;
}

bool have_sentencepiece() {
  int status;
  run("/usr/bin/python3 -c 'import sentencepiece' 2>/dev/null", &status);
  return status == 0;
}

// Encodes `texts` with the sentencepiece library and with ours, then decodes the ids with both; returns how many
// strings agree on both (and reports the others).
int compare_with_oracle(const std::string& model, const std::vector<std::string>& texts) {
  std::string err;
  auto t = load(model, &err);
  EXPECT_TRUE(t) << err;
  if (!t) return 0;
  const std::string dir = test::make_temp_dir(), input = dir + "/inputs.jsonl";
  std::string lines;
  for (const auto& s : texts) lines += json_string(s) + "\n";
  test::write_file(input, lines);
  int status;
  const std::string oracle = "/usr/bin/python3 " SAGUARO_SOURCE_ROOT "/test/reference/spm_oracle.py '" + model + "' '" + input + "'";
  std::istringstream expected(run(oracle, &status));
  EXPECT_EQ(status, 0);
  std::istringstream expected_text(run(oracle + " --decode", &status));
  EXPECT_EQ(status, 0);
  int agree = 0;
  for (const auto& s : texts) {
    std::string ids_line, text_line;
    std::getline(expected, ids_line);
    std::getline(expected_text, text_line);
    const auto ids = encode(*t, s);
    const std::string text = nlohmann::json::parse(text_line.empty() ? "null" : text_line).get<std::string>();
    // Known difference: sentencepiece drops every leading "▁"-only piece, piece(prev, token) only the first, which
    // shows only for text that starts (after spaces) with a literal U+2581.
    const bool literal_meta_first = s.find_first_not_of(' ') != std::string::npos &&
                                    s.compare(s.find_first_not_of(' '), 3, "\xE2\x96\x81") == 0;
    const bool decoded = literal_meta_first || decode(*t, ids) == text;
    EXPECT_EQ(join(ids), ids_line) << "text " << json_string(s);
    EXPECT_TRUE(decoded) << "text " << json_string(s) << " decodes to " << json_string(decode(*t, ids));
    agree += join(ids) == ids_line && decoded;
  }
  return agree;
}

std::vector<std::string> random_texts(uint32_t seed, int n) {
  std::mt19937 rng(seed);
  std::vector<std::string> v;
  for (int i = 0; i < n; ++i) v.push_back(random_text(rng, kWide | kMeta));
  return v;
}

TEST(SpmTokenizer, SentencepieceOracleLlamaBpe) {
  REQUIRE_LLAMA_DIR();
  if (!have_sentencepiece()) GTEST_SKIP() << "SKIP: /usr/bin/python3 has no sentencepiece (python3-sentencepiece)";
  const auto texts = random_texts(99, 1500);
  const int agree = compare_with_oracle(llama_dir() + "/llama2-tokenizer.model", texts);
  std::printf("[ oracle bpe ] %d/%zu strings encode and decode as sentencepiece does\n", agree, texts.size());
}

// Trains a small model with Debian's spm_train on generated text; "" when spm_train is unavailable.
std::string train_model(const std::string& dir, const std::string& name, const std::string& flags) {
  if (::access("/usr/bin/spm_train", X_OK) != 0) return "";
  std::mt19937 rng(7);
  std::string corpus;
  for (int i = 0; i < 3000; ++i) {
    std::string s = random_text(rng, kCommon);
    for (char& c : s)
      if (c == '\n') c = ' ';
    corpus += s + " the quick brown fox jumps over the lazy dog 12345 ünïcödé 日本語のテキスト\n";
  }
  test::write_file(dir + "/corpus.txt", corpus);
  int status;
  const std::string log = run("/usr/bin/spm_train --input=" + dir + "/corpus.txt --model_prefix=" + dir + "/" + name +
                                  " --vocab_size=400 --hard_vocab_limit=false --num_threads=2 " + flags + " 2>&1",
                              &status);
  EXPECT_EQ(status, 0) << log;
  return dir + "/" + name + ".model";
}

TEST(SpmTokenizer, SentencepieceOracleTrainedUnigram) {
  if (!have_sentencepiece()) GTEST_SKIP() << "SKIP: /usr/bin/python3 has no sentencepiece (python3-sentencepiece)";
  const std::string dir = test::make_temp_dir();
  const std::string plain = train_model(dir, "uni", "--model_type=unigram --normalization_rule_name=identity");
  if (plain.empty()) GTEST_SKIP() << "SKIP: /usr/bin/spm_train is not installed";
  const std::string bytes = train_model(dir, "unibyte",
                                        "--model_type=unigram --normalization_rule_name=identity --byte_fallback=true "
                                        "--remove_extra_whitespaces=false '--user_defined_symbols=<tool>,fox'");
  const auto texts = random_texts(4242, 1200);
  const int a = compare_with_oracle(plain, texts);
  const int b = compare_with_oracle(bytes, texts);
  std::printf("[ oracle unigram ] %d/%zu (unk, remove_extra_whitespaces) and %d/%zu (byte fallback, user-defined)\n",
              a, texts.size(), b, texts.size());
}

TEST(SpmTokenizer, SentencepieceOracleTrainedBpe) {
  if (!have_sentencepiece()) GTEST_SKIP() << "SKIP: /usr/bin/python3 has no sentencepiece (python3-sentencepiece)";
  const std::string dir = test::make_temp_dir();
  const std::string model = train_model(dir, "bpe", "--model_type=bpe --normalization_rule_name=identity");
  if (model.empty()) GTEST_SKIP() << "SKIP: /usr/bin/spm_train is not installed";
  const auto texts = random_texts(777, 1200);
  const int agree = compare_with_oracle(model, texts);
  std::printf("[ oracle trained bpe ] %d/%zu (unk merging, remove_extra_whitespaces)\n", agree, texts.size());
}

TEST(SpmTokenizer, NfkcCharsmapIsACompileTimeError) {
  const std::string dir = test::make_temp_dir();
  const std::string model = train_model(dir, "nfkc", "--model_type=unigram");
  if (model.empty()) GTEST_SKIP() << "SKIP: /usr/bin/spm_train is not installed";
  std::vector<uint8_t> bytes;
  std::vector<std::pair<std::string, std::string>> meta;
  std::string err;
  EXPECT_FALSE(import_spm_tokenizer(model, &bytes, &meta, &err));
  EXPECT_NE(err.find(model + ": normalizer 'nmt_nfkc' has a precompiled_charsmap"), std::string::npos) << err;
}

// Every truncation and many random byte flips of a real file: a one-line error naming the file or a valid
// tokenizer, never a crash.
void check_damaged(const std::string& src, const std::string& name) {
  const std::string good = test::read_file(src);
  ASSERT_FALSE(good.empty());
  const std::string path = test::make_temp_dir() + "/" + name;
  std::mt19937 rng(5);
  int errors = 0, cases = 0;
  auto attempt = [&](const std::string& bytes) {
    test::write_file(path, bytes);
    std::string err;
    auto t = load(path, &err);
    ++cases;
    if (!t) {
      ++errors;
      EXPECT_EQ(err.rfind(path + ": ", 0), 0u) << err;
      EXPECT_EQ(err.find('\n'), std::string::npos) << err;
    } else {
      std::vector<int32_t> ids;
      t->encode("Hello wörld 🦙 \t 123", true, &ids, &err);
      for (int32_t id : ids) ASSERT_TRUE(id >= 0 && id < t->vocab_size());
    }
  };
  for (size_t len = 0; len < good.size(); len += 1 + len / 8) attempt(good.substr(0, len));
  for (int i = 0; i < 300; ++i) {
    std::string bad = good;
    const int flips = std::uniform_int_distribution<int>(1, 8)(rng);
    for (int k = 0; k < flips; ++k)
      bad[std::uniform_int_distribution<size_t>(0, std::min<size_t>(bad.size() - 1, 4096))(rng)] ^=
          char(std::uniform_int_distribution<int>(1, 255)(rng));
    attempt(bad);
  }
  std::printf("[ damaged %s ] %d cases, %d refused with a one-line error, the rest still tokenize safely\n",
              name.c_str(), cases, errors);
  EXPECT_GT(errors, 0);
}

TEST(SpmTokenizer, DamagedTokenizerModel) {
  REQUIRE_LLAMA_DIR();
  check_damaged(llama_dir() + "/llama2-tokenizer.model", "tokenizer.model");
}

TEST(SpmTokenizer, DamagedGgufVocab) {
  REQUIRE_LLAMA_DIR();
  check_damaged(llama_dir() + "/ggml-vocab-llama-spm.gguf", "vocab.gguf");
}

TEST(SpmTokenizer, MissingFileAndDamagedTable) {
  std::vector<uint8_t> bytes;
  std::vector<std::pair<std::string, std::string>> meta;
  std::string err;
  EXPECT_FALSE(import_spm_tokenizer("/nonexistent/tokenizer.model", &bytes, &meta, &err));
  EXPECT_EQ(err.rfind("/nonexistent/tokenizer.model: cannot open", 0), 0u) << err;
  if (llama_dir().empty()) return;
  ASSERT_TRUE(import_spm_tokenizer(llama_dir() + "/llama2-tokenizer.model", &bytes, &meta, &err)) << err;
  for (size_t len : {size_t(0), size_t(8), size_t(30), bytes.size() / 2, bytes.size() - 1}) {
    EXPECT_FALSE(SpmTokenizer::create(bytes.data(), len, &err)) << len;
    EXPECT_EQ(err.rfind("spm tokenizer", 0), 0u) << err;
  }
  std::vector<uint8_t> huge = bytes;
  huge[8] = huge[9] = huge[10] = 0xFF;  // n_pieces beyond what the table can hold
  EXPECT_FALSE(SpmTokenizer::create(huge.data(), huge.size(), &err));
}

}  // namespace
}  // namespace saguaro
