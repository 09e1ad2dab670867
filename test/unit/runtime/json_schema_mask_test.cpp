// JSON Schema constrained decoding: the grammar accepts exactly the compact texts it should, masks over a small
// byte-level vocabulary close every value within the token budget, and bad schemas fail with one clear error.
#include "saguaro/json_schema_mask.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "fuzz_findings.h"

namespace saguaro {
namespace {

constexpr int32_t kEos = 0;

// A vocabulary of every printable ASCII byte, a few multi-byte tokens and some UTF-8; id 0 is the stop token.
std::shared_ptr<const TokenTrie> small_vocab() {
  std::vector<std::string> pieces = {""};
  for (int c = 0x20; c < 0x7F; ++c) pieces.push_back(std::string(1, static_cast<char>(c)));
  for (const char* p : {"{\"", "\":", "\",\"", "true", "false", "null", "12", "\"}", "]}", "ab", "name", "\"name\"",
                        "\xC3\xA9", "\xE2\x82\xAC", "\xC3", "\xA9", "\n", "\\n", "\\u00e9", "\\ud800", "1.5e3"})
    pieces.push_back(p);
  return std::make_shared<TokenTrie>(pieces, std::vector<int32_t>{kEos});
}

std::shared_ptr<const JsonGrammar> grammar(const std::string& schema) {
  std::string err;
  auto g = JsonGrammar::from_schema(schema, &err);
  EXPECT_TRUE(g) << schema << ": " << err;
  return g;
}

bool accepts_whole(const std::string& schema, const std::string& text) {
  JsonMask m(grammar(schema), small_vocab());
  return m.feed(text) && m.complete();
}

std::string schema_error(const std::string& schema) {
  std::string err;
  EXPECT_FALSE(JsonGrammar::from_schema(schema, &err)) << schema;
  return err;
}

TEST(JsonSchemaMask, AcceptsCompactValuesOfTheSchema) {
  const std::string obj =
      R"({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string","maxLength":3},)"
      R"("c":{"enum":["x","yy",3,null]}},"required":["b"],"additionalProperties":false})";
  EXPECT_TRUE(accepts_whole(obj, R"({"b":"abc"})"));
  EXPECT_TRUE(accepts_whole(obj, R"({"a":-12,"b":"","c":"yy"})"));
  EXPECT_TRUE(accepts_whole(obj, R"({"b":"x","c":null})"));
  EXPECT_FALSE(accepts_whole(obj, R"({"a":1})"));            // b is required
  EXPECT_FALSE(accepts_whole(obj, R"({"b":"abcd"})"));       // maxLength
  EXPECT_FALSE(accepts_whole(obj, R"({"b":"a","a":1})"));    // declared order
  EXPECT_FALSE(accepts_whole(obj, R"({"a":1.5,"b":"a"})"));  // integer
  EXPECT_FALSE(accepts_whole(obj, R"({"b":"a","c":"y"})"));  // not in the enum
  EXPECT_FALSE(accepts_whole(obj, R"({ "b":"a"})"));         // compact: no whitespace
  EXPECT_FALSE(accepts_whole(obj, R"({"b":"a","d":1})"));    // additionalProperties false
}

TEST(JsonSchemaMask, NumbersStringsArraysAndAnyOf) {
  EXPECT_TRUE(accepts_whole(R"({"type":"number"})", "-0.5e+10"));
  EXPECT_FALSE(accepts_whole(R"({"type":"number"})", "01"));
  EXPECT_FALSE(accepts_whole(R"({"type":"number"})", "1."));
  EXPECT_TRUE(accepts_whole(R"({"type":"string","minLength":2,"maxLength":2})", "\"\xC3\xA9\\n\""));
  EXPECT_FALSE(accepts_whole(R"({"type":"string","minLength":2})", "\"\xC3\xA9\""));  // one code point
  EXPECT_FALSE(accepts_whole(R"({"type":"string"})", "\"\xC3\""));                     // broken UTF-8
  EXPECT_FALSE(accepts_whole(R"({"type":"string"})", "\"\xED\xA0\x80\""));             // a surrogate
  EXPECT_FALSE(accepts_whole(R"({"type":"string"})", "\"\\ud800\""));
  EXPECT_TRUE(accepts_whole(R"({"type":"string"})", "\"\\u00e9\""));
  EXPECT_FALSE(accepts_whole(R"({"type":"string"})", "\"a\nb\""));  // a raw control character
  const std::string arr = R"({"type":"array","items":{"type":"boolean"},"minItems":1,"maxItems":2})";
  EXPECT_TRUE(accepts_whole(arr, "[true,false]"));
  EXPECT_FALSE(accepts_whole(arr, "[]"));
  EXPECT_FALSE(accepts_whole(arr, "[true,true,true]"));
  const std::string any = R"({"anyOf":[{"type":"string","maxLength":1},{"type":"string","minLength":3},{"type":"null"}]})";
  EXPECT_TRUE(accepts_whole(any, "\"a\""));
  EXPECT_TRUE(accepts_whole(any, "\"abc\""));
  EXPECT_TRUE(accepts_whole(any, "null"));
  EXPECT_FALSE(accepts_whole(any, "\"ab\""));
  EXPECT_TRUE(accepts_whole(R"({"type":["integer","null"]})", "7"));
  EXPECT_TRUE(accepts_whole(R"({"type":["integer","null"]})", "null"));
}

TEST(JsonSchemaMask, RecursiveDefsAndJsonObject) {
  const std::string tree =
      R"({"$ref":"#/$defs/node","$defs":{"node":{"type":"object","properties":{"v":{"type":"integer"},)"
      R"("kids":{"type":"array","items":{"$ref":"#/$defs/node"}}},"required":["v"]}}})";
  EXPECT_TRUE(accepts_whole(tree, R"({"v":1,"kids":[{"v":2},{"v":3,"kids":[]}]})"));
  EXPECT_FALSE(accepts_whole(tree, R"({"v":1,"kids":[{}]})"));
  std::string err;
  auto g = JsonGrammar::from_response_format(R"({"type":"json_object"})", &err);
  ASSERT_TRUE(g) << err;
  JsonMask m(g, small_vocab());
  EXPECT_TRUE(m.feed(R"({"a":[1,{"b":null}],"c":"d"})") && m.finished());
  JsonMask m2(g, small_vocab());
  EXPECT_FALSE(m2.feed("[1]"));
  EXPECT_FALSE(JsonGrammar::from_response_format(R"({"type":"text"})", &err));
  EXPECT_TRUE(err.empty());
}

TEST(JsonSchemaMask, BadSchemasNameTheProblem) {
  EXPECT_EQ(schema_error(R"({"type":"string","pattern":"a+"})"), "#: unsupported keyword \"pattern\"");
  EXPECT_EQ(schema_error(R"({"type":"object","properties":{"x":{"type":"number","minimum":0}}})"),
            "#/properties/x: unsupported keyword \"minimum\"");
  EXPECT_NE(schema_error(R"({"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/a"}}})").find("$ref cycle"),
            std::string::npos);
  EXPECT_NE(schema_error(R"({"$ref":"#/$defs/a","$defs":{"a":{"type":"object","properties":{"n":{"$ref":"#/$defs/a"}},)"
                         R"("required":["n"]}}})")
                .find("no finite value"),
            std::string::npos);
  EXPECT_NE(schema_error(R"({"$ref":"#/$defs/missing"})").find("points to nothing"), std::string::npos);
  EXPECT_NE(schema_error(R"({"$ref":"http://x/y.json"})").find("not local"), std::string::npos);
  EXPECT_NE(schema_error(R"({"type":"strnig"})").find("not a JSON Schema type"), std::string::npos);
  EXPECT_NE(schema_error(R"({"type":"string","minLength":3,"maxLength":2})").find("minLength"), std::string::npos);
  EXPECT_NE(schema_error(R"({"type":"object","required":["q"]})").find("\"q\""), std::string::npos);
  EXPECT_NE(schema_error(R"({"enum":[1,2],"type":"string"})").find("enum"), std::string::npos);
  EXPECT_NE(schema_error(R"({"type":"object",)").find("not valid JSON"), std::string::npos);
  EXPECT_NE(schema_error("false").find("accepts no value"), std::string::npos);
  std::string err;
  EXPECT_FALSE(JsonGrammar::from_response_format(R"({"type":"json_schema"})", &err));
  EXPECT_NE(err.find("json_schema"), std::string::npos);
}

// Samples uniformly among the allowed tokens until the mask ends the value; the text must parse, and each
// sampled token must be one the matcher accepts.
std::string sample_value(const std::shared_ptr<const JsonGrammar>& g, int32_t max_tokens, uint32_t seed) {
  auto vocab = small_vocab();
  JsonMask m(g, vocab);
  std::mt19937 rng(seed);
  std::string text;
  for (int32_t left = max_tokens; left > 0; --left) {
    std::vector<float> logits(vocab->vocab(), 0.0f);
    std::string err;
    EXPECT_TRUE(m.mask(logits.data(), vocab->vocab(), left, &err)) << err << " after " << text;
    std::vector<int32_t> ok;
    for (int32_t i = 0; i < vocab->vocab(); ++i)
      if (std::isfinite(logits[i])) ok.push_back(i);
    if (ok.empty()) break;
    const int32_t t = ok[rng() % ok.size()];
    if (t == kEos) break;
    text += vocab->piece(t);
    m.accept(t);
    if (m.finished()) break;
  }
  EXPECT_TRUE(m.complete()) << text;
  return text;
}

TEST(JsonSchemaMask, SampledValuesCloseWithinTheBudget) {
  const std::string schema =
      R"({"type":"object","properties":{"s":{"type":"string","minLength":4},"n":{"type":"number"},)"
      R"("l":{"type":"array","items":{"type":"string"},"minItems":2},"o":{"type":"object"}},)"
      R"("required":["s","l","o"]})";
  auto g = grammar(schema);
  for (uint32_t seed = 0; seed < 50; ++seed) {
    const std::string text = sample_value(g, 40, seed);
    const nlohmann::json v = nlohmann::json::parse(text, nullptr, false);
    ASSERT_FALSE(v.is_discarded()) << text;
    EXPECT_GE(v["s"].get<std::string>().size(), 4u) << text;
    EXPECT_GE(v["l"].size(), 2u) << text;
    EXPECT_TRUE(v["o"].is_object()) << text;
  }
}

TEST(JsonSchemaMask, StopTokenOnlyWhenComplete) {
  auto vocab = small_vocab();
  JsonMask m(grammar(R"({"type":"integer"})"), vocab);
  std::vector<float> logits(vocab->vocab(), 1.0f);
  std::string err;
  ASSERT_TRUE(m.mask(logits.data(), vocab->vocab(), 10, &err));
  EXPECT_TRUE(std::isinf(logits[kEos]));
  int32_t twelve = 0;
  while (vocab->piece(twelve) != "12") ++twelve;
  m.accept(twelve);
  std::fill(logits.begin(), logits.end(), 1.0f);
  ASSERT_TRUE(m.mask(logits.data(), vocab->vocab(), 10, &err));
  EXPECT_EQ(logits[kEos], 1.0f);
  EXPECT_FALSE(m.finished());  // a number may go on
}

TEST(JsonSchemaMask, TooSmallBudgetIsAnError) {
  auto vocab = small_vocab();
  JsonMask m(grammar(R"({"type":"string","minLength":10})"), vocab);
  std::vector<float> logits(vocab->vocab(), 0.0f);
  std::string err;
  EXPECT_FALSE(m.mask(logits.data(), vocab->vocab(), 5, &err));
  EXPECT_NE(err.find("max_tokens"), std::string::npos) << err;
}

// Two readings of anyOf that close the whole value at the same byte leave two empty stacks: they are one reading,
// and the value is complete.
TEST(JsonSchemaMask, ReadingsThatCloseTogetherAreOne) {
  const std::string schema = R"({"type":"object","properties":{"b":{"anyOf":[{"type":"integer"},{"enum":[1]}]}}})";
  JsonMask m(grammar(schema), small_vocab());
  EXPECT_TRUE(m.feed(R"({"b":1})"));
  EXPECT_TRUE(m.complete());
  EXPECT_TRUE(m.finished());
  EXPECT_FALSE(m.feed("}"));
}

// fuzz_json_schema's inputs: the schema before the first NUL, then the bytes after it fed one at a time, as the
// target feeds them (the sanitized suite is what would catch a relapse).
TEST(JsonSchemaMask, FuzzFindingsAreHandled) {
  const int seen = test::for_each_fuzz_finding("fuzz_json_schema", [](const std::string& path, const std::string& bytes) {
    const size_t cut = std::min(bytes.find('\0'), bytes.size());
    std::string err;
    auto g = JsonGrammar::from_schema(bytes.substr(0, cut), &err);
    ASSERT_TRUE(g) << path << ": " << err;
    JsonMask m(g, small_vocab());
    size_t fed = cut + 1;
    while (fed < bytes.size() && m.feed(bytes.substr(fed, 1))) ++fed;
    EXPECT_LT(fed, bytes.size()) << path << ": its bytes after the schema are not one value";
  });
  EXPECT_GT(seen, 0);
}

}  // namespace
}  // namespace saguaro
