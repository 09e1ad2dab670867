// llama2.c tokenizer: run.c encode/decode on the real tok512.bin (when ../shared exists) and on a tiny vocab.
#include "tokenizer_llama2c.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "TokenizerImport.h"
#include "test_util.h"

namespace saguaro {
namespace {

std::vector<int32_t> parse_ids_line(const std::string& line) {
  std::istringstream in(line.substr(line.find(':') + 1));
  std::vector<int32_t> ids;
  for (int32_t v; in >> v;) ids.push_back(v);
  return ids;
}

std::unique_ptr<Llama2cTokenizer> load(const std::vector<uint8_t>& bytes) {
  std::string err;
  auto t = Llama2cTokenizer::create(bytes.data(), bytes.size(), &err);
  EXPECT_TRUE(t) << err;
  return t;
}

class Tok512 : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string shared = test::shared_dir();
    if (shared.empty()) GTEST_SKIP() << "../shared (stories260K data) is absent: skipping tok512 tests";
    const std::string dir = shared + "/data/stories260K";
    const std::string tok = test::read_file(dir + "/tok512.bin");
    bytes_.assign(tok.begin(), tok.end());
    std::istringstream ids(test::read_file(dir + "/ref/once-upon-a-time.ids.txt"));
    std::getline(ids, prompt_line_);
    std::getline(ids, sequence_line_);
    stdout_ = test::read_file(dir + "/ref/once-upon-a-time.stdout.txt");
    tok_ = load(bytes_);
  }
  std::vector<uint8_t> bytes_;
  std::string prompt_line_, sequence_line_, stdout_;
  std::unique_ptr<Llama2cTokenizer> tok_;
};

TEST_F(Tok512, EncodesReferencePrompt) {
  ASSERT_EQ(tok_->vocab_size(), 512);
  std::vector<int32_t> ids;
  std::string err;
  ASSERT_TRUE(tok_->encode("Once upon a time", true, &ids, &err)) << err;
  EXPECT_EQ(ids, (std::vector<int32_t>{1, 403, 407, 261, 378}));
  EXPECT_EQ(ids, parse_ids_line(prompt_line_));
}

TEST_F(Tok512, DecodesReferenceSequenceAsRunCPrints) {
  const std::vector<int32_t> seq = parse_ids_line(sequence_line_);
  ASSERT_GT(seq.size(), 5u);
  std::string out;
  for (size_t i = 0; i + 1 < seq.size(); ++i) out += tok_->piece(seq[i], seq[i + 1]);
  ASSERT_FALSE(stdout_.empty());
  EXPECT_EQ(out, stdout_.substr(0, stdout_.size() - 1));
}

TEST_F(Tok512, EncodingDetails) {
  std::vector<int32_t> ids;
  std::string err;
  ASSERT_TRUE(tok_->encode("", true, &ids, &err));
  EXPECT_EQ(ids, (std::vector<int32_t>{1}));  // no dummy prefix for empty text
  ASSERT_TRUE(tok_->encode("\xC3\xA9", false, &ids, &err));  // é is a vocab codepoint
  EXPECT_EQ(ids, (std::vector<int32_t>{410, 485}));
  ASSERT_TRUE(tok_->encode("\xC3\xBC", false, &ids, &err));  // ü is not: byte fallback (+3)
  EXPECT_EQ(ids, (std::vector<int32_t>{410, 0xC3 + 3, 0xBC + 3}));
}

TEST_F(Tok512, ImporterAcceptsAndTruncationIsRejected) {
  std::vector<uint8_t> bytes;
  std::vector<std::pair<std::string, std::string>> meta;
  std::string err;
  const std::string path = test::shared_dir() + "/data/stories260K/tok512.bin";
  ASSERT_TRUE(import_llama2c_tokenizer(path, &bytes, &meta, &err)) << err;
  EXPECT_EQ(bytes, bytes_);
  EXPECT_NE(std::find(meta.begin(), meta.end(), std::make_pair(std::string("tokenizer.kind"), std::string("llama2c"))),
            meta.end());
  const std::string dir = test::make_temp_dir();
  test::write_file(dir + "/t.bin", std::string(bytes_.begin(), bytes_.end() - 3));
  EXPECT_FALSE(import_llama2c_tokenizer(dir + "/t.bin", &bytes, &meta, &err));
  EXPECT_NE(err.find("truncated"), std::string::npos) << err;
  EXPECT_FALSE(Llama2cTokenizer::create(bytes_.data(), bytes_.size() - 3, &err));
  EXPECT_NE(err.find("truncated"), std::string::npos) << err;
}

TEST(Llama2cTokenizer, TinyVocabMergesByScoreAndPrintsLikeRunC) {
  auto tok = load(test::tiny_llama2c_tokenizer());
  std::vector<int32_t> ids;
  std::string err;
  // " " + "a" + "b": best-scoring pair first (" "+"a" = " a" scores -4 > "ab" -5).
  ASSERT_TRUE(tok->encode("ab", true, &ids, &err));
  EXPECT_EQ(ids, (std::vector<int32_t>{1, 262, 261}));
  EXPECT_EQ(tok->piece(1, 262), "a");   // leading space stripped after BOS
  EXPECT_EQ(tok->piece(5, 262), " a");
  EXPECT_EQ(tok->piece(0, 3 + 'x'), "x");  // <0x78>
  EXPECT_EQ(tok->piece(0, 3 + '\n'), "\n");
  EXPECT_EQ(tok->piece(0, 3 + 0x07), "");  // unprintable single byte skipped
  EXPECT_EQ(tok->piece(0, 3 + 0xC3), "");  // so is a lone high byte (C locale)
  EXPECT_EQ(tok->piece(0, 9999), "");
}

TEST(Llama2cTokenizer, RejectsMalformedFiles) {
  std::string err;
  const unsigned char tiny[] = {1, 0};
  EXPECT_FALSE(Llama2cTokenizer::create(tiny, sizeof tiny, &err));
  auto bytes = test::llama2c_tokenizer_bytes({{"a", 0}, {"b", 0}, {"c", 0}}, 1);
  bytes[8] = 0xff;  // length of the first token becomes huge
  EXPECT_FALSE(Llama2cTokenizer::create(bytes.data(), bytes.size(), &err));
  EXPECT_NE(err.find("truncated"), std::string::npos) << err;
}

}  // namespace
}  // namespace saguaro
