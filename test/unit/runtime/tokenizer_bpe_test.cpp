// Hugging Face BPE tokenizer.json → tokenizer.bpe table → runtime encode/decode; unsupported components rejected.
#include "tokenizer_bpe.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <random>
#include <nlohmann/json.hpp>

#include "HfComponents.h"
#include "TokenizerImport.h"
#include "UnicodeTables.h"
#include "fuzz_findings.h"
#include "test_util.h"
#include "unicode/pre_tokenizer.h"

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

Imported import_json(const json& tj, const json* cfg = nullptr, const std::string* generation_config = nullptr) {
  const std::string dir = test::make_temp_dir();
  test::write_file(dir + "/tokenizer.json", tj.dump());
  if (cfg) test::write_file(dir + "/tokenizer_config.json", cfg->dump());
  if (generation_config) test::write_file(dir + "/generation_config.json", *generation_config);
  Imported r;
  r.ok = import_hf_tokenizer(dir, &r.bytes, &r.meta, &r.err);
  return r;
}

std::string meta_value(const Imported& r, const std::string& key) {
  for (const auto& kv : r.meta)
    if (kv.first == key) return kv.second;
  return "";
}

// generation_config.json's eos_token_id, one id or a list, gives the stop ids; anything else there is an error.
TEST(BpeTokenizer, StopIdsComeFromGenerationConfig) {
  const std::string list = R"({"eos_token_id": [14, 13]})", one = R"({"bos_token_id": 2, "eos_token_id": 14})";
  EXPECT_EQ(meta_value(import_json(tiny_tokenizer_json(), nullptr, &list), "tokenizer.stop_ids"), "14,13");
  EXPECT_EQ(meta_value(import_json(tiny_tokenizer_json(), nullptr, &one), "tokenizer.stop_ids"), "14");
  EXPECT_EQ(meta_value(import_json(tiny_tokenizer_json()), "tokenizer.stop_ids"), "");
  for (const std::string bad : {R"({"eos_token_id": [14, 999]})", R"({"eos_token_id": "</s>"})", "[1", "[]"}) {
    const Imported r = import_json(tiny_tokenizer_json(), nullptr, &bad);
    EXPECT_FALSE(r.ok) << bad;
    EXPECT_NE(r.err.find("generation_config.json: "), std::string::npos) << r.err;
  }
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

std::unique_ptr<BpeTokenizer> compile(const json& tj, const json* cfg = nullptr) {
  const Imported r = import_json(tj, cfg);
  EXPECT_TRUE(r.ok) << r.err;
  std::string err;
  auto tok = BpeTokenizer::create(r.bytes.data(), r.bytes.size(), &err);
  EXPECT_TRUE(tok) << err;
  return tok;
}

std::vector<int32_t> encode(BpeTokenizer& tok, const std::string& text, bool special = false) {
  std::vector<int32_t> ids;
  std::string err;
  EXPECT_TRUE(tok.encode(text, special, &ids, &err)) << err;
  return ids;
}

std::string decode(const BpeTokenizer& tok, const std::vector<int32_t>& ids, bool skip_special = true) {
  std::string text, err;
  EXPECT_TRUE(tok.decode(ids, skip_special, &text, &err)) << err;
  return text;
}

// GPT-2's byte alphabet: byte b is the character byte_char(b), and gets id b in the vocabularies below.
std::string byte_char(int b) {
  auto printable = [](int c) { return (c >= '!' && c <= '~') || (c >= 0xA1 && c <= 0xAC) || (c >= 0xAE && c <= 0xFF); };
  uint32_t cp = b;
  if (!printable(b)) {
    cp = 256;
    for (int c = 0; c < b; ++c) cp += !printable(c);
  }
  std::string s;
  if (cp < 0x80) s += static_cast<char>(cp);
  else s += {static_cast<char>(0xC0 | cp >> 6), static_cast<char>(0x80 | (cp & 0x3F))};
  return s;
}

json byte_level_tokenizer_json() {
  json vocab = json::object();
  for (int b = 0; b < 256; ++b) vocab[byte_char(b)] = b;
  const std::string G = byte_char(' ');  // "Ġ"
  vocab[G + "t"] = 256, vocab["he"] = 257, vocab[G + "the"] = 258, vocab["hello"] = 259;
  return {{"normalizer", nullptr},
          {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", true}, {"use_regex", true}}},
          {"post_processor", {{"type", "ByteLevel"}}},
          {"decoder", {{"type", "ByteLevel"}}},
          {"added_tokens",
           {{{"id", 260}, {"content", "<|begin_of_text|>"}, {"special", true}},
            {{"id", 261}, {"content", "<mask>"}, {"special", false}, {"lstrip", true}, {"normalized", false}},
            {{"id", 262}, {"content", "xy"}, {"special", false}, {"single_word", true}}}},
          {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", {json::array({G, "t"}), "h e", G + "t he"}}}}};
}

TEST(BpeTokenizer, Gpt2ByteLevel) {
  auto tok = compile(byte_level_tokenizer_json());
  ASSERT_TRUE(tok);
  // add_prefix_space, then the GPT-2 split: " the", " the", "'s", " é".
  EXPECT_EQ(encode(*tok, "the the's \xC3\xA9"), (std::vector<int32_t>{258, 258, '\'', 's', ' ', 0xC3, 0xA9}));
  EXPECT_EQ(decode(*tok, encode(*tok, "the the's \xC3\xA9")), " the the's \xC3\xA9");
  EXPECT_EQ(tok->piece(-1, 0xC3), "\xC3");  // raw bytes, for the UTF-8 stream to hold back
  // lstrip takes the space before <mask>; single_word "xy" only matches as a whole word.
  EXPECT_EQ(encode(*tok, "he <mask>"), (std::vector<int32_t>{' ', 257, 261}));
  EXPECT_EQ(encode(*tok, "xy xyz"), (std::vector<int32_t>{262, ' ', 'x', 'y', 'z'}));
}

TEST(BpeTokenizer, Llama3StyleSplitIgnoreMergesAndTemplate) {
  json tj = byte_level_tokenizer_json();
  const char* re =
      R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
  tj["pre_tokenizer"] = {{"type", "Sequence"},
                         {"pretokenizers",
                          {{{"type", "Split"}, {"pattern", {{"Regex", re}}}, {"behavior", "Isolated"}, {"invert", false}},
                           {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}}}}};
  tj["model"]["ignore_merges"] = true;
  tj["post_processor"] = json::parse(R"({"type": "Sequence", "processors": [{"type": "ByteLevel"},
      {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<|begin_of_text|>", "type_id": 0}},
                                               {"Sequence": {"id": "A", "type_id": 0}}],
       "special_tokens": {"<|begin_of_text|>": {"id": "<|begin_of_text|>", "ids": [260], "tokens": ["<|begin_of_text|>"]}}}]})");
  const json cfg = {{"bos_token", "<|begin_of_text|>"}};
  const Imported r = import_json(tj, &cfg);
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(meta_value(r, "tokenizer.add_bos"), "1");
  EXPECT_EQ(meta_value(r, "tokenizer.bos_id"), "260");
  auto tok = compile(tj, &cfg);
  ASSERT_TRUE(tok);
  // "hello" has no merge path but is in the vocab (ignore_merges); "12345" → "123", "45".
  EXPECT_EQ(encode(*tok, "hello 12345", true), (std::vector<int32_t>{260, 259, ' ', '1', '2', '3', '4', '5'}));
  EXPECT_EQ(decode(*tok, encode(*tok, "hello 12345", true)), "hello 12345");
  EXPECT_EQ(decode(*tok, encode(*tok, "hello 12345", true), false), "<|begin_of_text|>hello 12345");
}

TEST(BpeTokenizer, SentencePieceStyleNormalizerAndDecoder) {
  json vocab = {{"<unk>", 0}, {"<s>", 1}, {"</s>", 2}};
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    vocab[name] = 3 + b;
  }
  const std::string U = "\xE2\x96\x81";  // ▁
  vocab[U] = 259, vocab["h"] = 260, vocab["i"] = 261, vocab[U + "h"] = 262, vocab[U + "hi"] = 263;
  const json tj = {
      {"normalizer", {{"type", "Sequence"}, {"normalizers", {{{"type", "Prepend"}, {"prepend", U}}, {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", U}}}}}},
      {"pre_tokenizer", nullptr},
      {"decoder",
       {{"type", "Sequence"},
        {"decoders", {{{"type", "Replace"}, {"pattern", {{"String", U}}}, {"content", " "}}, {{"type", "ByteFallback"}},
                      {{"type", "Fuse"}}, {{"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}}}}}},
      {"added_tokens", {{{"id", 0}, {"content", "<unk>"}, {"special", true}}, {{"id", 1}, {"content", "<s>"}, {"special", true}},
                        {{"id", 2}, {"content", "</s>"}, {"special", true}}}},
      {"model", {{"type", "BPE"}, {"unk_token", "<unk>"}, {"byte_fallback", true}, {"fuse_unk", true}, {"vocab", vocab},
                 {"merges", {U + " h", U + "h i"}}}}};
  const json cfg = {{"bos_token", "<s>"}, {"eos_token", "</s>"}, {"add_bos_token", true}};
  auto tok = compile(tj, &cfg);
  ASSERT_TRUE(tok);
  tok->bos_id = 1;
  const auto ids = encode(*tok, "hi hi\xC3\xA9", true);
  EXPECT_EQ(ids, (std::vector<int32_t>{1, 263, 263, 3 + 0xC3, 3 + 0xA9}));
  EXPECT_EQ(decode(*tok, ids), "hi hi\xC3\xA9");
  EXPECT_EQ(tok->piece(1, 263), "hi");  // Strip after Fuse: the first piece after BOS loses its space
  EXPECT_EQ(tok->piece(263, 263), " hi");
}

// Runs compiled pre-tokenizer steps over `text`.
std::vector<std::string> pre_tokenize(const json& pre, const std::string& text) {
  std::vector<uint8_t> steps, tables;
  UnicodeTableNeeds needs;
  bool byte_level = false;
  std::string err;
  EXPECT_TRUE(compile_pre_tokenizer(pre, &steps, &needs, &byte_level, &err)) << err;
  EXPECT_TRUE(append_unicode_tables(needs, &tables, &err)) << err;
  PreTokenizer p;
  UnicodeTables t;
  ByteReader rs{steps.data(), steps.size()}, rt{tables.data(), tables.size()};
  EXPECT_TRUE(p.parse(&rs, &err) && t.parse(&rt, &err)) << err;
  std::vector<std::string_view> words;
  p.run(t, text, true, &words);
  return std::vector<std::string>(words.begin(), words.end());
}

TEST(BpeTokenizer, PreTokenizerSplitBehaviors) {
  using V = std::vector<std::string>;
  auto split = [](const char* behavior, bool invert) {
    return json{{"type", "Split"}, {"pattern", {{"String", "-"}}}, {"behavior", behavior}, {"invert", invert}};
  };
  EXPECT_EQ(pre_tokenize(split("Removed", false), "a--b-c"), (V{"a", "b", "c"}));
  EXPECT_EQ(pre_tokenize(split("Isolated", false), "a--b-c"), (V{"a", "-", "-", "b", "-", "c"}));
  EXPECT_EQ(pre_tokenize(split("MergedWithPrevious", false), "a--b-c"), (V{"a-", "-", "b-", "c"}));
  EXPECT_EQ(pre_tokenize(split("MergedWithNext", false), "a--b-c"), (V{"a", "-", "-b", "-c"}));
  EXPECT_EQ(pre_tokenize(split("Contiguous", false), "a--b-c"), (V{"a", "--", "b", "-", "c"}));
  EXPECT_EQ(pre_tokenize(split("Removed", true), "a--b-c"), (V{"-", "-", "-"}));
  EXPECT_EQ(pre_tokenize({{"type", "Digits"}, {"individual_digits", true}}, "ab12c3"), (V{"ab", "1", "2", "c", "3"}));
  EXPECT_EQ(pre_tokenize({{"type", "Digits"}, {"individual_digits", false}}, "ab12c3"), (V{"ab", "12", "c", "3"}));
  const std::string U = "\xE2\x96\x81";
  EXPECT_EQ(pre_tokenize({{"type", "Metaspace"}, {"replacement", U}, {"prepend_scheme", "always"}, {"split", true}}, "hello  world"),
            (V{U + "hello", U, U + "world"}));
  EXPECT_EQ(pre_tokenize({{"type", "Metaspace"}, {"replacement", U}, {"prepend_scheme", "never"}, {"split", false}}, "a b"),
            (V{"a" + U + "b"}));
  EXPECT_EQ(pre_tokenize({{"type", "ByteLevel"}, {"add_prefix_space", true}}, "hi there"), (V{" hi", " there"}));
}

TEST(BpeTokenizer, RejectsUnsupportedOrMalformedComponentsByName) {
  const std::pair<std::function<void(json&)>, std::string> cases[] = {
      {[](json& t) { t["pre_tokenizer"] = {{"type", "Whitespace"}}; }, "unsupported pre_tokenizer 'Whitespace'"},
      {[](json& t) { t["pre_tokenizer"] = {{"type", "Split"}, {"pattern", {{"Regex", "\\w+"}}}, {"behavior", "Isolated"}}; },
       "unsupported pre_tokenizer Split regex '\\w+'"},
      {[](json& t) { t["pre_tokenizer"] = {{"type", "Split"}, {"pattern", {{"String", "x"}}}, {"behavior", "Sideways"}}; },
       "Split behavior 'Sideways'"},
      {[](json& t) {
         t["pre_tokenizer"] = {{"type", "Sequence"}, {"pretokenizers", {{{"type", "ByteLevel"}}, {{"type", "Digits"}}}}};
       },
       "'Digits' after ByteLevel"},
      {[](json& t) { t["normalizer"] = {{"type", "Lowercase"}}; }, "unsupported normalizer 'Lowercase'"},
      {[](json& t) { t["normalizer"] = {{"type", "Replace"}, {"pattern", {{"Regex", " +"}}}, {"content", " "}}; },
       "normalizer 'Replace' with a regex"},
      {[](json& t) { t["decoder"] = {{"type", "WordPiece"}}; }, "unsupported decoder 'WordPiece'"},
      {[](json& t) { t["post_processor"] = {{"type", "Weird"}}; }, "unsupported post_processor 'Weird'"},
      {[](json& t) { t["model"]["type"] = "WordPiece"; }, "unsupported model 'WordPiece'"},
      {[](json& t) { t["model"]["merges"].push_back("x y"); }, "merge 'x y'"},
      {[](json& t) { t["model"]["merges"].push_back(7); }, "bad merge 7"},
      {[](json& t) { t["model"]["vocab"] = json::array(); }, "no vocab object"},
      {[](json& t) { t["model"]["vocab"]["q"] = "x"; }, "malformed model"},
      // fuzz_hf_tokenizer's finding (test/fuzz/regressions/fuzz_hf_tokenizer/): a float id converted to an integer
      {[](json& t) { t["model"]["vocab"]["q"] = 1.6e77; }, "vocab id of 'q' is not an integer in [0, 2^24)"},
      {[](json& t) { t["model"]["vocab"]["q"] = 7.5; }, "vocab id of 'q' is not an integer"},
      {[](json& t) { t["added_tokens"][0]["id"] = -1e300; }, "added_tokens: bad token id or content"},
      {[](json& t) { t["decoder"] = {{"type", "Strip"}, {"content", " "}, {"start", 1e30}}; },
       "'Strip' start and stop must be small integers"},
      {[](json& t) { t["added_tokens"][0].erase("id"); }, "malformed added_tokens"},
      {[](json& t) { t["normalizer"] = {{"type", "Replace"}}; }, "malformed normalizer"},
      {[](json& t) { t["pre_tokenizer"] = {{"type", "Sequence"}, {"pretokenizers", 3}}; }, "malformed pre_tokenizer"},
      {[](json& t) { t.erase("model"); }, "malformed model: missing"},
  };
  for (const auto& [edit, want] : cases) {
    json tj = tiny_tokenizer_json();
    edit(tj);
    const Imported r = import_json(tj);
    EXPECT_FALSE(r.ok) << want;
    EXPECT_NE(r.err.find("tokenizer.json: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(want), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find('\n'), std::string::npos) << r.err;
  }
  Imported r = import_json(json::array());
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.err.find("malformed tokenizer JSON"), std::string::npos) << r.err;
  const std::string dir = test::make_temp_dir();
  test::write_file(dir + "/tokenizer.json", "{\"model\": {");
  std::vector<uint8_t> bytes;
  std::vector<std::pair<std::string, std::string>> meta;
  std::string err;
  EXPECT_FALSE(import_hf_tokenizer(dir, &bytes, &meta, &err));
  EXPECT_NE(err.find("tokenizer.json: malformed tokenizer JSON"), std::string::npos) << err;
  EXPECT_FALSE(import_hf_tokenizer(dir + "/nope", &bytes, &meta, &err));
  EXPECT_NE(err.find("cannot open"), std::string::npos) << err;
}

// Every tokenizer.json fuzz_hf_tokenizer found (test/fuzz/regressions/fuzz_hf_tokenizer/) is refused in one line.
TEST(BpeTokenizer, FuzzFindingsAreRefused) {
  const int seen = test::for_each_fuzz_finding("fuzz_hf_tokenizer", [](const std::string& path,
                                                                        const std::string& found) {
    const std::string dir = test::make_temp_dir();
    test::write_file(dir + "/tokenizer.json", found);
    std::vector<uint8_t> bytes;
    std::vector<std::pair<std::string, std::string>> meta;
    std::string err;
    EXPECT_FALSE(import_hf_tokenizer(dir, &bytes, &meta, &err)) << path;
    EXPECT_NE(err.find("tokenizer.json: "), std::string::npos) << path << ": " << err;
    EXPECT_EQ(err.find('\n'), std::string::npos) << err;
  });
  EXPECT_GE(seen, 1);
}

TEST(BpeTokenizer, RejectsTruncatedOrDamagedTable) {
  const Imported r = import_json(byte_level_tokenizer_json());
  ASSERT_TRUE(r.ok) << r.err;
  std::string err;
  for (size_t cut = 0; cut < r.bytes.size(); cut += 1 + cut / 8)
    EXPECT_FALSE(BpeTokenizer::create(r.bytes.data(), cut, &err)) << cut;
  EXPECT_TRUE(BpeTokenizer::create(r.bytes.data(), r.bytes.size(), &err)) << err;
  std::mt19937 rng(5);
  for (int i = 0; i < 300; ++i) {  // random byte damage: either rejected or a working tokenizer, never a crash
    std::vector<uint8_t> bad = r.bytes;
    for (int k = 0; k < 3; ++k) bad[rng() % bad.size()] = static_cast<uint8_t>(rng());
    if (auto tok = BpeTokenizer::create(bad.data(), bad.size(), &err)) {
      std::vector<int32_t> ids;
      tok->encode("Hello, world! 123 <mask> xy", true, &ids, &err);
    }
  }
}

}  // namespace
}  // namespace saguaro
