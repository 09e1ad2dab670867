// Hugging Face BPE tokenizer.json → tokenizer.bpe table → runtime encode/decode; unsupported components rejected.
#include "tokenizer_bpe.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "TokenizerImport.h"
#include "test_util.h"

namespace saguaro {
namespace {

using nlohmann::json;

json tiny_tokenizer_json() {
  json vocab = {{"<unk>", 0}, {"h", 1}, {"e", 2}, {"l", 3}, {"o", 4}, {" ", 5}, {"he", 6},
                {"ll", 7},    {"hell", 8}, {"hello", 9}, {"<0xC3>", 10}, {"<0xA9>", 11}, {"w", 12}};
  return {{"version", "1.0"},
          {"normalizer", nullptr},
          {"pre_tokenizer", nullptr},
          {"post_processor", nullptr},
          {"decoder", {{"type", "Sequence"}, {"decoders", {{{"type", "ByteFallback"}}, {{"type", "Fuse"}}}}}},
          {"added_tokens",
           {{{"id", 13}, {"content", "<s>"}, {"special", true}},
            {{"id", 14}, {"content", "</s>"}, {"special", true}},
            {{"id", 15}, {"content", "<tool>"}, {"special", false}}}},
          {"model",
           {{"type", "BPE"},
            {"unk_token", "<unk>"},
            {"byte_fallback", true},
            {"fuse_unk", false},
            {"vocab", vocab},
            {"merges", {"h e", "l l", "he ll", "hell o"}}}}};
}

struct Imported {
  std::vector<uint8_t> bytes;
  std::vector<std::pair<std::string, std::string>> meta;
  std::string err;
  bool ok;
};

Imported import_json(const json& tj, const json* cfg = nullptr) {
  const std::string dir = test::make_temp_dir();
  test::write_file(dir + "/tokenizer.json", tj.dump());
  if (cfg) test::write_file(dir + "/tokenizer_config.json", cfg->dump());
  Imported r;
  r.ok = import_hf_tokenizer(dir, &r.bytes, &r.meta, &r.err);
  return r;
}

std::string meta_value(const Imported& r, const std::string& key) {
  for (const auto& kv : r.meta)
    if (kv.first == key) return kv.second;
  return "";
}

TEST(BpeTokenizer, EncodesWithMergesAddedTokensAndByteFallback) {
  const json cfg = {{"bos_token", "<s>"}, {"eos_token", {{"content", "</s>"}}}, {"add_bos_token", true}};
  const Imported r = import_json(tiny_tokenizer_json(), &cfg);
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(meta_value(r, "tokenizer.kind"), "bpe");
  EXPECT_EQ(meta_value(r, "tokenizer.bos_id"), "13");
  EXPECT_EQ(meta_value(r, "tokenizer.eos_id"), "14");
  EXPECT_EQ(meta_value(r, "tokenizer.add_bos"), "1");
  std::string err;
  auto tok = BpeTokenizer::create(r.bytes.data(), r.bytes.size(), &err);
  ASSERT_TRUE(tok) << err;
  tok->bos_id = 13;
  std::vector<int32_t> ids;
  ASSERT_TRUE(tok->encode("hello hell<tool>\xC3\xA9z</s>", true, &ids, &err));
  // z is unknown without a byte token → <unk>; é → <0xC3><0xA9>.
  EXPECT_EQ(ids, (std::vector<int32_t>{13, 9, 5, 8, 15, 10, 11, 0, 14}));
  std::string text;
  for (size_t i = 1; i < ids.size(); ++i) text += tok->piece(ids[i - 1], ids[i]);
  EXPECT_EQ(text, "hello hell<tool>\xC3\xA9<unk>");  // special tokens print nothing
}

TEST(BpeTokenizer, RejectsUnsupportedComponentsByName) {
  json tj = tiny_tokenizer_json();
  tj["pre_tokenizer"] = {{"type", "ByteLevel"}};
  Imported r = import_json(tj);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.err.find("pre_tokenizer 'ByteLevel'"), std::string::npos) << r.err;
  tj = tiny_tokenizer_json();
  tj["normalizer"] = {{"type", "NFC"}};
  r = import_json(tj);
  EXPECT_NE(r.err.find("normalizer 'NFC'"), std::string::npos) << r.err;
  tj = tiny_tokenizer_json();
  tj["model"]["type"] = "WordPiece";
  r = import_json(tj);
  EXPECT_NE(r.err.find("model 'WordPiece'"), std::string::npos) << r.err;
  tj = tiny_tokenizer_json();
  tj["decoder"] = {{"type", "ByteLevel"}};
  r = import_json(tj);
  EXPECT_NE(r.err.find("decoder 'ByteLevel'"), std::string::npos) << r.err;
  tj = tiny_tokenizer_json();
  tj["model"]["merges"].push_back("x y");
  r = import_json(tj);
  EXPECT_NE(r.err.find("merge 'x y'"), std::string::npos) << r.err;
  r = import_json(json::array());
  EXPECT_FALSE(r.ok);
}

TEST(BpeTokenizer, RejectsTruncatedTable) {
  const Imported r = import_json(tiny_tokenizer_json());
  ASSERT_TRUE(r.ok) << r.err;
  std::string err;
  for (size_t cut : {size_t(0), size_t(10), r.bytes.size() / 2, r.bytes.size() - 1})
    EXPECT_FALSE(BpeTokenizer::create(r.bytes.data(), cut, &err)) << cut;
}

}  // namespace
}  // namespace saguaro
