// Qwen3's tokenizer.json compiled to tokenizer.bpe must encode exactly as transformers.js and llama.cpp do
// (../shared/data/tokenizers/qwen3), and decode(encode(x)) must give back x (NFC-normalized) for any text.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "TokenizerImport.h"
#include "test_util.h"
#include "tokenizer_bpe.h"

namespace saguaro {
namespace {

using nlohmann::json;

std::string qwen_dir() {
  const std::string shared = test::shared_dir();
  return shared.empty() ? "" : shared + "/data/tokenizers/qwen3";
}


// Compiles the Qwen3 tokenizer once for all tests (tokenizer.json.xz is unpacked into a temp dir).
class QwenTokenizer : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::string src = qwen_dir();
    if (src.empty()) return;
    const std::string dir = test::make_temp_dir();
    test::write_file(dir + "/tokenizer.json", test::run_command("xz -dc '" + src + "/tokenizer.json.xz'"));
    test::write_file(dir + "/tokenizer_config.json", test::read_file(src + "/tokenizer_config.json"));
    std::vector<uint8_t> bytes;
    std::vector<std::pair<std::string, std::string>> meta;
    if (!import_hf_tokenizer(dir, &bytes, &meta, &error_)) return;
    tok_ = BpeTokenizer::create(bytes.data(), bytes.size(), &error_).release();
    table_bytes_ = bytes.size();
  }
  static void TearDownTestSuite() { delete tok_, tok_ = nullptr; }
  void SetUp() override {
    if (qwen_dir().empty()) GTEST_SKIP() << "../shared/data/tokenizers/qwen3 is absent (SAGUARO_SHARED_DIR)";
    ASSERT_NE(tok_, nullptr) << error_;
  }
  static std::vector<int32_t> encode(const std::string& text, bool special) {
    std::vector<int32_t> ids;
    std::string err;
    EXPECT_TRUE(tok_->encode(text, special, &ids, &err)) << err;
    return ids;
  }
  static std::string decode(const std::vector<int32_t>& ids) {
    std::string text, err;
    EXPECT_TRUE(tok_->decode(ids, false, &text, &err)) << err;
    return text;
  }
  static BpeTokenizer* tok_;
  static std::string error_;
  static size_t table_bytes_;
};
BpeTokenizer* QwenTokenizer::tok_ = nullptr;
std::string QwenTokenizer::error_;
size_t QwenTokenizer::table_bytes_ = 0;

// The inputs of llama.cpp's test-tokenizer-0: .inp split on "\n__ggml_vocab_test__\n", .out one line of ids each.
std::vector<std::pair<std::string, std::vector<int32_t>>> ggml_cases() {
  const std::string inp = test::read_file(qwen_dir() + "/ggml-vocab-qwen2.gguf.inp");
  const std::string out = test::read_file(qwen_dir() + "/ggml-vocab-qwen2.gguf.out");
  const std::string sep = "\n__ggml_vocab_test__\n";
  std::vector<std::string> texts;
  for (size_t i = 0, k; (k = inp.find(sep, i)) != std::string::npos; i = k + sep.size()) texts.push_back(inp.substr(i, k - i));
  std::vector<std::pair<std::string, std::vector<int32_t>>> cases;
  std::istringstream lines(out);
  std::string line;
  for (const std::string& t : texts) {
    std::getline(lines, line);
    std::istringstream ids(line);
    std::vector<int32_t> v;
    for (int32_t id; ids >> id;) v.push_back(id);
    cases.emplace_back(t, v);
  }
  return cases;
}

TEST_F(QwenTokenizer, TransformersJsVectors) {
  std::istringstream in(test::read_file(qwen_dir() + "/vectors_transformersjs.jsonl"));
  int total = 0, passed = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    const json v = json::parse(line);
    const std::string text = v.at("text");
    const auto ids = encode(text, false), with_special = encode(text, true);
    const bool ok = ids == v.at("ids").get<std::vector<int32_t>>() &&
                    with_special == v.at("ids_with_special").get<std::vector<int32_t>>() &&
                    decode(ids) == v.at("decoded").get<std::string>();
    EXPECT_TRUE(ok) << "text: " << text;
    ++total, passed += ok;
  }
  EXPECT_EQ(total, 20);
  std::printf("transformers.js vectors: %d/%d pass\n", passed, total);
}

TEST_F(QwenTokenizer, LlamaCppVocabTest) {
  const auto cases = ggml_cases();
  int passed = 0;
  for (const auto& [text, want] : cases) {
    const auto ids = encode(text, false);
    EXPECT_EQ(ids, want) << "text: '" << text << "'";
    EXPECT_EQ(decode(ids), text);
    passed += ids == want;
  }
  EXPECT_EQ(cases.size(), 46u);
  std::printf("llama.cpp ggml-vocab-qwen2 inputs: %d/%zu pass\n", passed, cases.size());
}

// Random strings mixing ASCII, whitespace, contractions, digits, Latin-1, combining marks, CJK, Hangul, emoji and
// the special tokens.
std::string random_text(std::mt19937* rng) {
  static const char* const atoms[] = {" ", "  ", "\n", "\r\n", "\t", "'s", "'LL", "a", "Z", "7", "42", ".", "!?",
                                      "\xC3\xA9", "e\xCC\x81", "\xCC\x81", "\xE4\xB8\xAD", "\xED\x95\x9C",
                                      "\xF0\x9F\x98\x80", "\xE2\x80\x8D", "\xC2\xA0", "<|im_start|>", "<|endoftext|>",
                                      "\xEF\xBC\x91", "\xE2\x85\xA2", "\xD9\xA3"};
  std::uniform_int_distribution<int> len(0, 24), pick(0, 3), atom(0, sizeof(atoms) / sizeof(atoms[0]) - 1);
  std::uniform_int_distribution<uint32_t> cp(1, 0x10FFFF);
  std::string s;
  for (int i = len(*rng); i > 0; --i) {
    if (pick(*rng) != 0) {
      s += atoms[atom(*rng)];
      continue;
    }
    uint32_t c = cp(*rng);
    if (c >= 0xD800 && c <= 0xDFFF) c = 'x';
    if (c < 0x80) s += static_cast<char>(c);
    else if (c < 0x800) s += {static_cast<char>(0xC0 | c >> 6), static_cast<char>(0x80 | (c & 0x3F))};
    else if (c < 0x10000)
      s += {static_cast<char>(0xE0 | c >> 12), static_cast<char>(0x80 | (c >> 6 & 0x3F)), static_cast<char>(0x80 | (c & 0x3F))};
    else
      s += {static_cast<char>(0xF0 | c >> 18), static_cast<char>(0x80 | (c >> 12 & 0x3F)),
            static_cast<char>(0x80 | (c >> 6 & 0x3F)), static_cast<char>(0x80 | (c & 0x3F))};
  }
  return s;
}

TEST_F(QwenTokenizer, RoundTripsRandomText) {
  std::mt19937 rng(1234);
  std::vector<std::string> texts;
  for (int i = 0; i < 2000; ++i) texts.push_back(random_text(&rng));
  // Python's unicodedata is the NFC oracle (Qwen's normalizer is NFC, so decode(encode(x)) == NFC(x)).
  const std::string dir = test::make_temp_dir();
  json arr = texts;
  test::write_file(dir + "/in.json", arr.dump());
  const std::string nfc = test::run_command("python3 -c \"import json,sys,unicodedata; print(json.dumps([unicodedata.normalize('NFC', s) "
                              "for s in json.load(open(sys.argv[1]))]))\" " + dir + "/in.json");
  if (nfc.empty()) GTEST_SKIP() << "python3 unavailable for the NFC oracle";
  const auto want = json::parse(nfc).get<std::vector<std::string>>();
  ASSERT_EQ(want.size(), texts.size());
  int passed = 0;
  for (size_t i = 0; i < texts.size(); ++i) {
    const std::string got = decode(encode(texts[i], false));
    EXPECT_EQ(got, want[i]) << "round trip differs for " << json(texts[i]).dump();
    passed += got == want[i];
  }
  std::printf("random round trips equal to python NFC: %d/%zu\n", passed, texts.size());
}

// A guard against quadratic behaviour, not a benchmark: the bounds are 10x what a loaded machine needs.
TEST_F(QwenTokenizer, EncodesAMegabyteInLinearishTime) {
  std::mt19937 rng(7);
  std::string text;
  while (text.size() < (1u << 20)) text += random_text(&rng) + " The quick brown fox, 1234 jumps! ";
  const auto t0 = std::chrono::steady_clock::now();
  const auto ids = encode(text, false);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GT(ids.size(), text.size() / 4);
  EXPECT_LT(s, 10.0) << "1 MiB took " << s << " s";
  std::printf("encoded %zu bytes into %zu ids in %.3f s; table %zu bytes\n", text.size(), ids.size(), s, table_bytes_);
  std::string spaces(1 << 20, ' ');
  const auto t1 = std::chrono::steady_clock::now();
  EXPECT_EQ(decode(encode(spaces, false)), spaces);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count(), 10.0);
}

TEST_F(QwenTokenizer, PiecesAreRawBytesForStreaming) {
  const auto ids = encode("h\xC3\xA9llo \xF0\x9F\x98\x80<|im_end|>", false);
  std::string text;
  int32_t prev = -1;
  for (int32_t id : ids) text += tok_->piece(prev, id), prev = id;
  EXPECT_EQ(text, "h\xC3\xA9llo \xF0\x9F\x98\x80");  // special tokens print nothing
  EXPECT_EQ(ids.back(), 151645);
  const std::string invalid = "\xFF ok\xC3 \xE2\x82";  // invalid UTF-8 survives as bytes
  EXPECT_EQ(decode(encode(invalid, false)), invalid);
  std::string err, out;
  EXPECT_FALSE(tok_->decode({151936 + 5}, false, &out, &err));
  EXPECT_NE(err.find("out of range"), std::string::npos) << err;
}

}  // namespace
}  // namespace saguaro
