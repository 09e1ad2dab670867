// saguaro_complete applies the bundle's chat.template tensor to OpenAI-style messages (fake bigram model).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "blob_writer.h"
#include "fake_model.h"
#include "saguaro/chat_template.h"
#include "saguaro/engine.h"
#include "saguaro/saguaro.h"
#include "test_util.h"

namespace saguaro {
namespace {

using nlohmann::json;

// A fake-model bundle whose chat.template tensor holds `chat` bytes; returns the bundle directory.
std::string bundle_with_chat(const std::vector<uint8_t>& chat) {
  static const std::vector<float> table = test::fake_bigram_table();
  static const std::vector<uint8_t> tok = test::tiny_llama2c_tokenizer();
  const std::string dir = test::make_temp_dir();
  std::vector<BlobTensor> ts(3);
  ts[0] = {"bigram", "weight", "row-major", DType::F32, {test::kFakeVocab, test::kFakeVocab}, table.data(),
           table.size() * 4};
  ts[1] = {"tokenizer.llama2c", "tokenizer", "row-major", DType::U8, {int64_t(tok.size())}, tok.data(), tok.size()};
  ts[2] = {"chat.template", "chat_template", "row-major", DType::U8, {int64_t(chat.size())}, chat.data(), chat.size()};
  std::string err;
  EXPECT_TRUE(write_blob(dir + "/weights.sgw", ts, {{"model.name", "fake-bigram"}, {"tokenizer.kind", "llama2c"}},
                         &err))
      << err;
  return dir;
}

ChatTemplate tiny_template() {
  ChatTemplate t;
  t.pieces[ChatTemplate::kSystemPrefix] = "b";
  t.pieces[ChatTemplate::kUserPrefix] = t.pieces[ChatTemplate::kUserPrefixAfterSystem] = "ab";
  t.pieces[ChatTemplate::kAssistantPrefix] = "a";
  t.pieces[ChatTemplate::kGenerationPrompt] = "ab";
  return t;
}

TEST(CApiChat, AppliesTheBundlesTemplate) {
  const std::string dir = bundle_with_chat(tiny_template().serialize());
  saguaro_model_t model = saguaro_init(dir.c_str());
  ASSERT_NE(model, nullptr) << saguaro_last_error();
  char buf[4096];
  const char* msgs = R"([{"role":"system","content":"a"},{"role":"user","content":"b"}])";
  ASSERT_GT(saguaro_complete(model, msgs, R"({"temperature":0,"max_tokens":1})", buf, sizeof buf, nullptr, nullptr), 0)
      << buf;
  // The prompt is "b" + "a" + "ab" + "b" + "ab": its token count (with BOS) is what was prefilled.
  std::string err;
  auto engine = Engine::open(dir, &err);
  ASSERT_TRUE(engine) << err;
  std::vector<int32_t> ids;
  ASSERT_TRUE(engine->tokenize("baabbab", &ids, &err)) << err;
  EXPECT_EQ(json::parse(buf)["prefill_tokens"], ids.size());

  // Roles the template cannot take are reported, not guessed at.
  EXPECT_EQ(saguaro_complete(model, R"([{"role":"tool","content":"x"}])", nullptr, buf, sizeof buf, nullptr, nullptr),
            -1);
  EXPECT_NE(std::string(saguaro_last_error()).find("this template does not render tool messages"), std::string::npos)
      << saguaro_last_error();
  EXPECT_EQ(saguaro_complete(model, R"([{"role":"assistant"}])", nullptr, buf, sizeof buf, nullptr, nullptr), -1);
  saguaro_destroy(model);
}

// Tools in the options: the answer's calls (none here: the fake model answers "a") come back in OpenAI's shape;
// a forced call that the answer does not complete, bad tools and a template without tools are one error each.
TEST(CApiChat, ToolsInTheOptions) {
  ChatTemplate with_tools = tiny_template();
  with_tools.flags = ChatTemplate::kTools | ChatTemplate::kToolCalls;
  with_tools.pieces[ChatTemplate::kCallOpen] = "<tool_call>\n{\"name\": \"";  // Qwen3's calls
  saguaro_model_t model = saguaro_init(bundle_with_chat(with_tools.serialize()).c_str());
  saguaro_model_t plain = saguaro_init(bundle_with_chat(tiny_template().serialize()).c_str());
  ASSERT_TRUE(model && plain) << saguaro_last_error();
  char buf[4096];
  const char* msgs = R"([{"role":"user","content":"b"}])";
  const std::string tools = R"("tools":[{"type":"function","function":{"name":"f"}}])";
  ASSERT_GT(saguaro_complete(model, msgs, ("{" + tools + R"(,"temperature":0})").c_str(), buf, sizeof buf, nullptr,
                             nullptr),
            0)
      << buf;
  const json r = json::parse(buf);
  EXPECT_EQ(r["tool_calls"], json::array());
  EXPECT_EQ(r["finish_reason"], "stop");
  // Without tools: the same answer, and neither key.
  ASSERT_GT(saguaro_complete(model, msgs, R"({"temperature":0})", buf, sizeof buf, nullptr, nullptr), 0) << buf;
  EXPECT_EQ(json::parse(buf)["response"], "a");
  EXPECT_EQ(r["response"], "a");
  EXPECT_FALSE(json::parse(buf).contains("tool_calls"));
  const std::pair<saguaro_model_t, std::pair<std::string, std::string>> bad[] = {
      // The forced call's JSON needs more tokens than the fake model's 32 positions leave after the prompt: the
      // mask says so (under tool_choice, which asked for it).
      {model, {"{" + tools + R"(,"tool_choice":"required","temperature":0})",
               "options_json: tool_choice: 17 tokens left cannot complete the JSON value"}},
      {model, {"{" + tools + R"(,"tool_choice":"required","response_format":{"type":"json_object"}})",
               "options_json: a \"response_format\" and a tool_choice that forces a call exclude each other"}},
      {model, {R"({"tools":[{"type":"function","function":{}}]})",
               "options_json: \"tools\": tools[0]: \"function\" needs a string \"name\""}},
      {model, {R"({"tools":"f"})", "options_json: \"tools\": tools: expected a JSON array"}},
      {plain, {"{" + tools + "}", "options_json: \"tools\": the model's chat template cannot express tools"}},
  };
  for (const auto& [m, c] : bad) {
    EXPECT_EQ(saguaro_complete(m, msgs, c.first.c_str(), buf, sizeof buf, nullptr, nullptr), -1) << c.first;
    EXPECT_EQ(std::string(saguaro_last_error()).rfind(c.second, 0), 0u) << saguaro_last_error();
  }
  saguaro_destroy(model);
  saguaro_destroy(plain);
}

TEST(CApiChat, DamagedTemplateIsRefusedAtInit) {
  const std::string dir = bundle_with_chat({'n', 'o', 'p', 'e'});
  EXPECT_EQ(saguaro_init(dir.c_str()), nullptr);
  EXPECT_NE(std::string(saguaro_last_error()).find("chat.template: truncated header"), std::string::npos)
      << saguaro_last_error();
}

}  // namespace
}  // namespace saguaro
