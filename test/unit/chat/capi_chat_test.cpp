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

TEST(CApiChat, DamagedTemplateIsRefusedAtInit) {
  const std::string dir = bundle_with_chat({'n', 'o', 'p', 'e'});
  EXPECT_EQ(saguaro_init(dir.c_str()), nullptr);
  EXPECT_NE(std::string(saguaro_last_error()).find("chat.template: truncated header"), std::string::npos)
      << saguaro_last_error();
}

}  // namespace
}  // namespace saguaro
