// Tools on a hand-off (issue 31, acceptance 3): a fake OpenAI, Anthropic and Gemini server each gets the request's
// tools, its tool_choice and the conversation's earlier call and tool result in its own API's form, and answers with a call in its
// own form, which comes back in OpenAI's tool_calls shape with finish_reason "tool_calls".
#include <gtest/gtest.h>

#include "fake_cloud_server.h"
#include "saguaro/handoff/hybrid_complete.h"
#include "saguaro/handoff/log.h"
#include "test_support.h"

namespace saguaro::handoff::test {
namespace {

using nlohmann::json;

const json kTools = json::parse(R"([{"type": "function", "function": {"name": "get_weather", "description": "Weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}])");
const json kChoice = json::parse(R"({"type": "function", "function": {"name": "get_weather"}})");
// A turn after an earlier call and its result.
const json kConversation = json::parse(R"([
  {"role": "user", "content": "Weather in Oslo?"},
  {"role": "assistant", "content": null, "tool_calls": [{"id": "call_7", "type": "function",
      "function": {"name": "get_weather", "arguments": "{\"city\": \"Oslo\"}"}}]},
  {"role": "tool", "tool_call_id": "call_7", "content": "12 C"},
  {"role": "user", "content": "And in Bergen?"}])");

struct Case {
  const char* provider;
  json reply;                                  // the provider's answer: a call of get_weather({"city": "Bergen"})
  std::function<void(const json& body)> sent;  // checks the request body the provider got
};

TEST(HybridTools, ToolsOutCallsBackForEachProvider) {
  set_log_sink(nullptr);
  const Case cases[] = {
      {"openai",
       json::parse(R"({"id": "x", "object": "chat.completion", "choices": [{"index": 0, "finish_reason": "tool_calls",
           "message": {"role": "assistant", "content": null, "tool_calls": [{"id": "call_c1", "type": "function",
           "function": {"name": "get_weather", "arguments": "{\"city\": \"Bergen\"}"}}]}}],
           "usage": {"prompt_tokens": 9, "completion_tokens": 4}})"),
       [](const json& body) {
         EXPECT_EQ(body["tools"], kTools);
         EXPECT_EQ(body["tool_choice"], kChoice);
         EXPECT_EQ(body["messages"][1]["tool_calls"], kConversation[1]["tool_calls"]);
         EXPECT_EQ(body["messages"][2]["role"], "tool");
         EXPECT_EQ(body["messages"][2]["tool_call_id"], "call_7");
       }},
      {"anthropic",
       json::parse(R"({"id": "msg_1", "type": "message", "role": "assistant", "stop_reason": "tool_use",
           "content": [{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Bergen"}}],
           "usage": {"input_tokens": 9, "output_tokens": 4}})"),
       [](const json& body) {
         EXPECT_EQ(body["tools"][0]["name"], "get_weather");
         EXPECT_EQ(body["tools"][0]["description"], "Weather");
         EXPECT_EQ(body["tools"][0]["input_schema"], kTools[0]["function"]["parameters"]);
         EXPECT_EQ(body["tool_choice"], json::parse(R"({"type": "tool", "name": "get_weather"})"));
         EXPECT_EQ(body["messages"][1]["content"][0],
                   json::parse(R"({"type": "tool_use", "id": "call_7", "name": "get_weather", "input": {"city": "Oslo"}})"));
         EXPECT_EQ(body["messages"][2],
                   json::parse(R"({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_7",
                                   "content": "12 C"}]})"));
       }},
      {"gemini",
       json::parse(R"({"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "get_weather",
           "args": {"city": "Bergen"}}}]}, "finishReason": "STOP"}],
           "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 4}})"),
       [](const json& body) {
         EXPECT_EQ(body["tools"][0]["functionDeclarations"][0]["name"], "get_weather");
         EXPECT_EQ(body["tools"][0]["functionDeclarations"][0]["parameters"], kTools[0]["function"]["parameters"]);
         EXPECT_EQ(body["toolConfig"], json::parse(R"({"functionCallingConfig": {"mode": "ANY",
                                                       "allowedFunctionNames": ["get_weather"]}})"));
         EXPECT_EQ(body["contents"][1],
                   json::parse(R"({"role": "model", "parts": [{"functionCall": {"name": "get_weather",
                                   "args": {"city": "Oslo"}}}]})"));
         EXPECT_EQ(body["contents"][2],
                   json::parse(R"({"role": "user", "parts": [{"functionResponse": {"name": "get_weather",
                                   "response": {"content": "12 C"}}}]})"));
       }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.provider);
    FakeCloudServer server(FakeBehavior::Ok, c.reply.dump());
    TempDir dir;
    const json options = {{"cloud_provider", c.provider},
                          {"cloud_base_url", std::string(c.provider) == "openai" ? server.base_url()
                                                                                  : "http://127.0.0.1:" + std::to_string(server.port())},
                          {"cloud_model", "fake-model"},
                          {"spend_ledger_path", dir.file("ledger.json")}};
    HybridHooks hooks;
    hooks.env = fake_env({{"SAGUARO_CLOUD_API_KEY", kFakeKey}, {"HOME", dir.path()}});
    hooks.tools = kTools;
    hooks.tool_choice = kChoice;
    const json r = hybrid_complete_json(kConversation, options, [] { return LocalAnswer{"", 0.1}; }, hooks);
    ASSERT_EQ(r["cloud_handoff"], true) << r.dump();
    EXPECT_EQ(r["finish_reason"], "tool_calls");
    ASSERT_EQ(r["tool_calls"].size(), 1u) << r.dump();
    const json& call = r["tool_calls"][0];
    EXPECT_EQ(call["type"], "function");
    EXPECT_TRUE(call["id"].is_string() && !call["id"].get<std::string>().empty());
    EXPECT_EQ(call["function"]["name"], "get_weather");
    EXPECT_EQ(json::parse(call["function"]["arguments"].get<std::string>()), json({{"city", "Bergen"}}));
    ASSERT_EQ(server.raw_requests().size(), 1u);
    const std::string raw = server.raw_requests()[0];
    c.sent(json::parse(raw.substr(raw.find("\r\n\r\n") + 4)));
  }
  set_log_sink(stderr_log_sink());
}

}  // namespace
}  // namespace saguaro::handoff::test
