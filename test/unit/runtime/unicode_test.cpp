// The runtime's Unicode layer against independent oracles: the UCD's NormalizationTest.txt for NFC/NFD/NFKC/NFKD,
// and Python's `regex` module for the GPT-2 / Llama 3 / Qwen2 pre-tokenizer patterns on random text.
#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "UnicodeTables.h"
#include "test_util.h"
#include "unicode/normalize.h"
#include "unicode/split_patterns.h"
#include "unicode/unicode_tables.h"
#include "unicode/utf8.h"

namespace saguaro {
namespace {

using nlohmann::json;


// Tables compiled by the compiler side from the system UCD, parsed by the runtime side.
const UnicodeTables* tables() {
  static UnicodeTables* t = [] {
    std::vector<uint8_t> bytes;
    std::string err;
    UnicodeTableNeeds needs;
    needs.classes = needs.normalization = needs.compat = true;
    auto* u = new UnicodeTables();
    if (!append_unicode_tables(needs, &bytes, &err)) return (ADD_FAILURE() << err), u;
    ByteReader r{bytes.data(), bytes.size()};
    if (!u->parse(&r, &err) || r.left != 0) ADD_FAILURE() << "parse: " << err;
    return u;
  }();
  return t;
}

std::string from_hex(const std::string& field) {
  std::istringstream in(field);
  std::string out;
  for (std::string h; in >> h;) utf8::append(static_cast<uint32_t>(std::stoul(h, nullptr, 16)), &out);
  return out;
}

TEST(UnicodeTables, ClassesAndCompactSize) {
  const UnicodeTables& t = *tables();
  EXPECT_EQ(t.classes('a'), kClassLetter);
  EXPECT_EQ(t.classes('7'), kClassNumber);
  EXPECT_EQ(t.classes(0xBD), kClassNumber);     // ½ is No
  EXPECT_EQ(t.classes(0x4E2D), kClassLetter);   // 中 (inside a First/Last range)
  EXPECT_EQ(t.classes(0xAC00), kClassLetter);   // 가
  EXPECT_EQ(t.classes(0x3000), kClassSpace);
  EXPECT_EQ(t.classes(0x85), kClassSpace);
  EXPECT_EQ(t.classes(0x200D), 0);              // ZWJ is neither
  EXPECT_EQ(t.classes(0x1F600), 0);
  EXPECT_EQ(t.classes(utf8::kRawByte + 0xFF), 0);
  EXPECT_EQ(t.ccc(0x301), 230);
  EXPECT_EQ(t.compose('e', 0x301), 0xE9u);
  EXPECT_EQ(t.compose(0x1100, 0x1161), 0xAC00u);  // Hangul LV
  std::vector<uint8_t> classes_only;
  std::string err;
  UnicodeTableNeeds needs;
  needs.classes = true;
  ASSERT_TRUE(append_unicode_tables(needs, &classes_only, &err)) << err;
  EXPECT_LT(classes_only.size(), 40000u);
}

TEST(UnicodeTables, RejectsTruncatedSection) {
  std::vector<uint8_t> bytes;
  std::string err;
  UnicodeTableNeeds needs;
  needs.classes = needs.normalization = true;
  ASSERT_TRUE(append_unicode_tables(needs, &bytes, &err)) << err;
  for (size_t cut : {size_t(0), size_t(3), bytes.size() / 3, bytes.size() - 1}) {
    UnicodeTables t;
    ByteReader r{bytes.data(), cut};
    EXPECT_FALSE(t.parse(&r, &err)) << cut;
  }
}

TEST(UnicodeNormalization, ConformanceFile) {
  const std::string text = test::run_command("bzcat " + unicode_data_dir() + "/NormalizationTest.txt.bz2 2>/dev/null");
  if (text.empty()) GTEST_SKIP() << unicode_data_dir() << "/NormalizationTest.txt.bz2 is absent";
  const UnicodeTables& t = *tables();
  NormalizeScratch scratch;
  auto nf = [&](NormalForm f, const std::string& s) {
    std::string out;
    normalize(t, f, s, &scratch, &out);
    return out;
  };
  std::istringstream in(text);
  int lines = 0, failed = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#' || line[0] == '@') continue;
    std::vector<std::string> c;
    std::istringstream fields(line);
    for (std::string f; c.size() < 5 && std::getline(fields, f, ';');) c.push_back(from_hex(f));
    ASSERT_EQ(c.size(), 5u) << line;
    bool ok = true;
    for (int i = 0; i < 3; ++i) ok &= nf(NormalForm::NFC, c[i]) == c[1] && nf(NormalForm::NFD, c[i]) == c[2];
    for (int i = 3; i < 5; ++i) ok &= nf(NormalForm::NFC, c[i]) == c[3] && nf(NormalForm::NFD, c[i]) == c[4];
    for (int i = 0; i < 5; ++i) ok &= nf(NormalForm::NFKC, c[i]) == c[3] && nf(NormalForm::NFKD, c[i]) == c[4];
    if (!ok && ++failed <= 10) ADD_FAILURE() << "NormalizationTest line: " << line;
    ++lines;
  }
  EXPECT_GT(lines, 18000);
  EXPECT_EQ(failed, 0);
  std::printf("NormalizationTest.txt: %d/%d lines pass\n", lines - failed, lines);
}

TEST(UnicodeNormalization, InvalidBytesPassThrough) {
  NormalizeScratch scratch;
  std::string out;
  normalize(*tables(), NormalForm::NFC, "e\xCC\x81\xFF\xC3", &scratch, &out);
  EXPECT_EQ(out, "\xC3\xA9\xFF\xC3");
}

// Characters whose classes agree across Unicode versions (so Python's regex, on a newer Unicode, is a fair oracle).
std::string random_split_text(std::mt19937* rng) {
  static const uint32_t alphabet[] = {' ', ' ', ' ', '\n', '\r', '\t', '\v', '\f', '\'', '\'', 's', 'S', 't', 'r',
                                      'e', 'v', 'm', 'l', 'L', 'd', 'D', 'a', 'Z', '0', '1', '9', '.', ',', '!',
                                      '-', '(', '_', 0xA0, 0x85, 0x2009, 0x3000, 0x2028, 0xE9, 0x301, 0x17F,
                                      0x3B1, 0x416, 0x4E2D, 0xAC00, 0xBD, 0x2162, 0x661, 0xFF11, 0x1F600, 0x200D,
                                      0x2014, 0x300C, 0xFF0C};
  std::uniform_int_distribution<int> len(0, 30), pick(0, sizeof(alphabet) / sizeof(alphabet[0]) - 1);
  std::string s;
  for (int i = len(*rng); i > 0; --i) utf8::append(alphabet[pick(*rng)], &s);
  return s;
}

TEST(UnicodeSplitPatterns, MatchPythonRegexOnRandomText) {
  const char* const patterns[] = {
      R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)",
      R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)",
      R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)"};
  std::mt19937 rng(99);
  std::vector<std::string> texts = {"Hello world's", "  x\n\n  y ", "I'M 12345 ok?!\r\n\r\n", "a  \t b"};
  for (int i = 0; i < 1000; ++i) texts.push_back(random_split_text(&rng));
  const std::string dir = test::make_temp_dir();
  test::write_file(dir + "/in.json", json({{"patterns", patterns}, {"texts", texts}}).dump());
  test::write_file(dir + "/oracle.py",
                   "import json, sys, regex\n"
                   "d = json.load(open(sys.argv[1]))\n"
                   "print(json.dumps([[[[m.start(), m.end()] for m in regex.finditer(p, t)] for t in d['texts']]"
                   " for p in d['patterns']]))\n");
  const std::string out = test::run_command("python3 " + dir + "/oracle.py " + dir + "/in.json 2>/dev/null");
  if (out.empty()) GTEST_SKIP() << "python3 with the regex module is unavailable";
  const json want = json::parse(out);
  const UnicodeTables& t = *tables();
  for (int p = 0; p < 3; ++p) {
    int passed = 0;
    for (size_t k = 0; k < texts.size(); ++k) {
      std::vector<uint32_t> cps;
      std::vector<uint8_t> cls;
      for (size_t i = 0, n; i < texts[k].size(); i += n) cps.push_back(utf8::decode(texts[k], i, &n)), cls.push_back(t.classes(cps.back()));
      json got = json::array();
      for (size_t i = 0; i < cps.size();) {
        const size_t e = match_split_pattern(static_cast<SplitPattern>(p + 1), cps.data(), cls.data(), cps.size(), i);
        if (e != i) got.push_back({i, e});
        i = e == i ? i + 1 : e;
      }
      EXPECT_EQ(got, want[p][k]) << "pattern " << p + 1 << " text " << json(texts[k]).dump();
      passed += got == want[p][k];
    }
    std::printf("split pattern %d: %d/%zu texts match python regex\n", p + 1, passed, texts.size());
  }
}

}  // namespace
}  // namespace saguaro
