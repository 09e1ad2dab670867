// Acceptance 5 of issue 7: 1000 sequential and 8 concurrent clients with no error, 400 + JSON for malformed
// requests, streaming chunks that parse. The client is cpp-httplib's, independent of the server code.
#include <gtest/gtest.h>

#include <atomic>
#include <sstream>
#include <thread>

#include <httplib.h>

#include "saguaro/handoff/chat_server.h"

namespace saguaro::handoff {
namespace {

using nlohmann::json;

// Echoes the last user message word by word; counts overlapping calls to prove the server serializes them.
class FakeGenerator {
 public:
  GenerationResult operator()(const GenerationRequest& req, const TokenCallback& on_token) {
    const int inside = ++active_;
    max_active_ = std::max(max_active_.load(), inside);
    std::istringstream words(req.messages.back().content);
    std::string word, text;
    long long n = 0;
    while (words >> word && n < req.max_tokens) {
      const std::string piece = (n ? " " : "") + word;
      text += piece;
      ++n;
      if (!on_token(piece)) break;
    }
    ++calls_;
    --active_;
    return {text, static_cast<long long>(req.messages.size()) * 3, n, n == req.max_tokens ? "length" : "stop"};
  }
  int max_active() const { return max_active_; }
  int calls() const { return calls_; }

 private:
  std::atomic<int> active_{0}, max_active_{0}, calls_{0};
};

class ChatServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<ChatServer>("tiny-cloud", [this](const GenerationRequest& r, const TokenCallback& t) {
      return generator_(r, t);
    });
    port_ = server_->bind("127.0.0.1", 0);
    server_->serve_in_background();
  }
  void TearDown() override { server_->stop(); }

  static std::string chat_body(const std::string& content, json extra = json::object()) {
    json body = {{"model", "tiny-cloud"}, {"messages", {{{"role", "user"}, {"content", content}}}}};
    body.update(extra);
    return body.dump();
  }

  FakeGenerator generator_;
  std::unique_ptr<ChatServer> server_;
  int port_ = 0;
};

TEST_F(ChatServerTest, ThousandSequentialRequests) {
  httplib::Client client("127.0.0.1", port_);
  int failures = 0;
  for (int i = 0; i < 1000; ++i) {
    const std::string content = "hello number " + std::to_string(i);
    auto res = client.Post("/v1/chat/completions", chat_body(content), "application/json");
    if (!res || res->status != 200) {
      ++failures;
      continue;
    }
    json body = json::parse(res->body);
    failures += body["choices"][0]["message"]["content"] == content ? 0 : 1;
    failures += body["object"] == "chat.completion" && body["usage"]["completion_tokens"] == 3 ? 0 : 1;
  }
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(generator_.calls(), 1000);
}

TEST_F(ChatServerTest, EightConcurrentClients) {
  std::atomic<int> failures{0}, ok{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < 8; ++c) {
    clients.emplace_back([&, c] {
      httplib::Client client("127.0.0.1", port_);
      for (int i = 0; i < 50; ++i) {
        const std::string content = "client " + std::to_string(c) + " request " + std::to_string(i);
        const bool stream = i % 5 == 0;
        auto res = client.Post("/v1/chat/completions", chat_body(content, {{"stream", stream}}), "application/json");
        const bool good = res && res->status == 200 &&
                          (stream ? res->body.find("data: [DONE]") != std::string::npos
                                  : json::parse(res->body)["choices"][0]["message"]["content"] == content);
        (good ? ok : failures)++;
      }
    });
  }
  for (std::thread& t : clients) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(ok.load(), 400);
  EXPECT_EQ(generator_.max_active(), 1);  // the generator never ran twice at once
}

TEST_F(ChatServerTest, MalformedRequestsGet400WithJsonError) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"not json", "{\"messages\": ["},
      {"not an object", "[1,2,3]"},
      {"missing messages", R"({"model":"tiny-cloud"})"},
      {"empty messages", R"({"messages":[]})"},
      {"messages not array", R"({"messages":"hi"})"},
      {"message not object", R"({"messages":["hi"]})"},
      {"unknown role", R"({"messages":[{"role":"wizard","content":"hi"}]})"},
      {"role not string", R"({"messages":[{"role":1,"content":"hi"}]})"},
      {"content wrong type", R"({"messages":[{"role":"user","content":42}]})"},
      {"content missing", R"({"messages":[{"role":"user"}]})"},
      {"bad part type", R"({"messages":[{"role":"user","content":[{"type":"video","video":{}}]}]})"},
      {"max_tokens string", R"({"messages":[{"role":"user","content":"hi"}],"max_tokens":"5"})"},
      {"max_tokens zero", R"({"messages":[{"role":"user","content":"hi"}],"max_tokens":0})"},
      {"temperature string", R"({"messages":[{"role":"user","content":"hi"}],"temperature":"hot"})"},
      {"temperature too high", R"({"messages":[{"role":"user","content":"hi"}],"temperature":9})"},
      {"stream not bool", R"({"messages":[{"role":"user","content":"hi"}],"stream":"yes"})"},
      {"n = 2", R"({"messages":[{"role":"user","content":"hi"}],"n":2})"},
      {"model not string", R"({"messages":[{"role":"user","content":"hi"}],"model":7})"},
      {"stream_options not object", R"({"messages":[{"role":"user","content":"hi"}],"stream_options":true})"},
      // found by fuzz_serve_request (test/fuzz/regressions/fuzz_serve_request/include-usage-number)
      {"include_usage a number",
       R"({"messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":1e308}})"},
  };
  httplib::Client client("127.0.0.1", port_);
  for (const auto& [name, body] : cases) {
    auto res = client.Post("/v1/chat/completions", body, "application/json");
    ASSERT_TRUE(res) << name;
    EXPECT_EQ(res->status, 400) << name;
    json error = json::parse(res->body, nullptr, false);
    ASSERT_FALSE(error.is_discarded()) << name << ": " << res->body;
    EXPECT_TRUE(error["error"]["message"].is_string()) << name;
    EXPECT_EQ(error["error"]["type"], "invalid_request_error") << name;
  }
  EXPECT_EQ(generator_.calls(), 0);
  auto missing = client.Get("/v1/nothing");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_TRUE(json::parse(missing->body)["error"]["message"].is_string());
}

TEST_F(ChatServerTest, StreamingChunksParse) {
  httplib::Client client("127.0.0.1", port_);
  auto res = client.Post("/v1/chat/completions",
                         chat_body("one two three four", {{"stream", true}, {"stream_options", {{"include_usage", true}}}}),
                         "application/json");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200);
  EXPECT_NE(res->get_header_value("Content-Type").find("text/event-stream"), std::string::npos);
  std::istringstream lines(res->body);
  std::string line, text, finish;
  int chunks = 0;
  bool done = false, usage_seen = false, role_seen = false;
  std::string id;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    ASSERT_EQ(line.rfind("data: ", 0), 0u) << line;
    const std::string data = line.substr(6);
    ASSERT_FALSE(done) << "data after [DONE]";
    if (data == "[DONE]") {
      done = true;
      continue;
    }
    json chunk = json::parse(data);
    ++chunks;
    EXPECT_EQ(chunk["object"], "chat.completion.chunk");
    EXPECT_EQ(chunk["model"], "tiny-cloud");
    if (id.empty()) id = chunk["id"];
    EXPECT_EQ(chunk["id"], id);
    if (chunk.contains("usage")) {
      usage_seen = true;
      EXPECT_EQ(chunk["usage"]["completion_tokens"], 4);
      continue;
    }
    const json& choice = chunk["choices"][0];
    if (choice["delta"].contains("role")) role_seen = true;
    if (choice["delta"].contains("content")) text += choice["delta"]["content"].get<std::string>();
    if (!choice["finish_reason"].is_null()) finish = choice["finish_reason"];
  }
  EXPECT_TRUE(done);
  EXPECT_TRUE(role_seen);
  EXPECT_TRUE(usage_seen);
  EXPECT_EQ(text, "one two three four");
  EXPECT_EQ(finish, "stop");
  EXPECT_EQ(chunks, 1 + 4 + 1 + 1);  // role, 4 content pieces, finish, usage
}

TEST_F(ChatServerTest, MaxTokensAndModels) {
  httplib::Client client("127.0.0.1", port_);
  auto res = client.Post("/v1/chat/completions", chat_body("a b c d e", {{"max_tokens", 2}}), "application/json");
  ASSERT_TRUE(res);
  json body = json::parse(res->body);
  EXPECT_EQ(body["choices"][0]["message"]["content"], "a b");
  EXPECT_EQ(body["choices"][0]["finish_reason"], "length");
  auto models = client.Get("/v1/models");
  ASSERT_TRUE(models);
  EXPECT_EQ(models->status, 200);
  json list = json::parse(models->body);
  EXPECT_EQ(list["object"], "list");
  EXPECT_EQ(list["data"][0]["id"], "tiny-cloud");
}

TEST(ChatServer, GeneratorFailureIs500WithJson) {
  ChatServer server("broken", [](const GenerationRequest&, const TokenCallback&) -> GenerationResult {
    throw std::runtime_error("out of memory in the fake");
  });
  const int port = server.bind("127.0.0.1", 0);
  server.serve_in_background();
  httplib::Client client("127.0.0.1", port);
  auto res = client.Post("/v1/chat/completions", R"({"messages":[{"role":"user","content":"hi"}]})", "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 500);
  EXPECT_EQ(json::parse(res->body)["error"]["type"], "server_error");
  server.stop();
}

// GenerationResult::extra (what `saguaro serve --options` puts there: whether the cloud answered) is the completion's
// "saguaro" field, and in a stream the finish chunk's; without it neither carries the field.
TEST(ChatServer, ExtraGoesOutAsSaguaroField) {
  bool with_extra = true;
  ChatServer server("hybrid", [&](const GenerationRequest&, const TokenCallback& on_token) {
    on_token("from the cloud");
    GenerationResult r{"from the cloud", 3, 4, "stop", nullptr};
    if (with_extra) r.extra = {{"cloud_handoff", true}, {"error", nullptr}};
    return r;
  });
  const int port = server.bind("127.0.0.1", 0);
  server.serve_in_background();
  httplib::Client client("127.0.0.1", port);
  const std::string body = R"({"messages":[{"role":"user","content":"hi"}]})";
  auto res = client.Post("/v1/chat/completions", body, "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(json::parse(res->body)["saguaro"], json({{"cloud_handoff", true}, {"error", nullptr}})) << res->body;
  auto streamed = client.Post("/v1/chat/completions", R"({"stream":true,"messages":[{"role":"user","content":"hi"}]})",
                              "application/json");
  ASSERT_TRUE(streamed);
  int finish_chunks = 0;
  std::istringstream lines(streamed->body);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("data: {", 0) != 0) continue;
    const json chunk = json::parse(line.substr(6));
    const bool finish = !chunk["choices"].empty() && !chunk["choices"][0]["finish_reason"].is_null();
    EXPECT_EQ(chunk.contains("saguaro"), finish) << line;
    if (finish) {
      EXPECT_EQ(chunk["saguaro"]["cloud_handoff"], true);
      ++finish_chunks;
    }
  }
  EXPECT_EQ(finish_chunks, 1) << streamed->body;
  with_extra = false;
  res = client.Post("/v1/chat/completions", body, "application/json");
  ASSERT_TRUE(res);
  EXPECT_FALSE(json::parse(res->body).contains("saguaro")) << res->body;
  server.stop();
}

// Tools reach the generator as sent; its calls go out as OpenAI's API sends them: message.tool_calls with null
// content and finish_reason "tool_calls", and in a stream tool_calls deltas that a client joins by index (as the
// OpenAI Python SDK does) into the same calls. The next turn (the assistant's calls, the tool's result) is accepted.
TEST(ChatServer, ToolCallsGoOutAsOpenAISendsThem) {
  const json calls = json::parse(R"([{"id": "call_1", "type": "function", "function": {"name": "get_weather",
      "arguments": "{\"city\":\"Oslo\"}"}}, {"id": "call_2", "type": "function", "function": {"name": "now",
      "arguments": "{}"}}])");
  const json tools = json::parse(R"([{"type": "function", "function": {"name": "get_weather"}},
                                     {"type": "function", "function": {"name": "now"}}])");
  json seen_tools, seen_choice;
  ChatServer server("tools", [&](const GenerationRequest& r, const TokenCallback&) {
    seen_tools = r.tools, seen_choice = r.tool_choice;
    GenerationResult result{"", 3, 9, "tool_calls"};
    result.tool_calls = calls;
    return result;
  });
  const int port = server.bind("127.0.0.1", 0);
  server.serve_in_background();
  httplib::Client client("127.0.0.1", port);
  json body = {{"messages", {{{"role", "user"}, {"content", "Weather in Oslo?"}}}}, {"tools", tools},
               {"tool_choice", "auto"}};
  auto res = client.Post("/v1/chat/completions", body.dump(), "application/json");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  EXPECT_EQ(seen_tools, tools);
  EXPECT_EQ(seen_choice, "auto");
  const json choice = json::parse(res->body)["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "tool_calls");
  EXPECT_TRUE(choice["message"]["content"].is_null());
  EXPECT_EQ(choice["message"]["tool_calls"], calls);

  body["stream"] = true;
  res = client.Post("/v1/chat/completions", body.dump(), "application/json");
  ASSERT_TRUE(res);
  json joined = json::array();
  std::string finish;
  std::istringstream lines(res->body);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("data: {", 0) != 0) continue;
    const json chunk = json::parse(line.substr(6));
    const json& delta = chunk["choices"][0]["delta"];
    if (!chunk["choices"][0]["finish_reason"].is_null()) finish = chunk["choices"][0]["finish_reason"];
    if (!delta.contains("tool_calls")) continue;
    for (const json& d : delta["tool_calls"]) {
      const size_t i = d["index"];
      while (joined.size() <= i) joined.push_back({{"function", {{"name", ""}, {"arguments", ""}}}});
      json& call = joined[i];
      if (d.contains("id")) call["id"] = d["id"], call["type"] = d["type"];
      if (d["function"].contains("name")) call["function"]["name"] = call["function"]["name"].get<std::string>() + d["function"]["name"].get<std::string>();
      call["function"]["arguments"] = call["function"]["arguments"].get<std::string>() + d["function"]["arguments"].get<std::string>();
    }
  }
  EXPECT_EQ(joined, calls) << res->body;
  EXPECT_EQ(finish, "tool_calls");

  // The next turn, as an OpenAI client sends it.
  const json next = {{"messages", {{{"role", "user"}, {"content", "Weather in Oslo?"}},
                                   {{"role", "assistant"}, {"content", nullptr}, {"tool_calls", calls}},
                                   {{"role", "tool"}, {"tool_call_id", "call_1"}, {"content", "12 C"}},
                                   {{"role", "tool"}, {"tool_call_id", "call_2"}, {"content", "noon"}}}},
                     {"tools", tools}};
  res = client.Post("/v1/chat/completions", next.dump(), "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200) << res->body;
  res = client.Post("/v1/chat/completions", json{{"messages", body["messages"]}, {"tools", "get_weather"}}.dump(),
                    "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_EQ(json::parse(res->body)["error"]["param"], "tools");
  server.stop();
}

// `saguaro serve --api-key-file`: without the right bearer key every route answers 401 in OpenAI's error envelope
// (code invalid_api_key), the generator never runs, and the key is in no response.
TEST_F(ChatServerTest, ApiKeyGuardsEveryRoute) {
  const std::string key = "sk-test-0123456789abcdef";
  server_->require_api_key(key);
  httplib::Client client("127.0.0.1", port_);
  const std::string body = chat_body("one two");
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"", "needs an API key"},
      {"Bearer sk-test-0123456789abcdeX", "not valid"},
      {"Bearer " + key + "0", "not valid"},
      {"Bearer sk-test", "not valid"},
      {"Basic " + key, "not valid"},
      {"bearer " + key, "not valid"}};
  for (const auto& [authorization, message] : refused) {
    httplib::Headers headers;
    if (!authorization.empty()) headers.emplace("Authorization", authorization);
    for (const bool models : {false, true}) {
      auto res = models ? client.Get("/v1/models", headers)
                        : client.Post("/v1/chat/completions", headers, body, "application/json");
      ASSERT_TRUE(res) << authorization;
      EXPECT_EQ(res->status, 401) << authorization;
      EXPECT_EQ(res->get_header_value("WWW-Authenticate"), "Bearer");
      const json error = json::parse(res->body)["error"];
      EXPECT_EQ(error["code"], "invalid_api_key") << res->body;
      EXPECT_NE(error["message"].get<std::string>().find(message), std::string::npos) << res->body;
      EXPECT_EQ(res->body.find("0123456789abcdef"), std::string::npos) << res->body;
    }
  }
  EXPECT_EQ(generator_.calls(), 0);

  const httplib::Headers ok = {{"Authorization", "Bearer " + key}};
  auto res = client.Post("/v1/chat/completions", ok, body, "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200) << res->body;
  EXPECT_EQ(json::parse(res->body)["choices"][0]["message"]["content"], "one two");
  auto streamed = client.Post("/v1/chat/completions", ok, chat_body("three", {{"stream", true}}), "application/json");
  ASSERT_TRUE(streamed);
  EXPECT_EQ(streamed->status, 200);
  EXPECT_NE(streamed->body.find("data: [DONE]"), std::string::npos);
  auto models = client.Get("/v1/models", ok);
  ASSERT_TRUE(models);
  EXPECT_EQ(models->status, 200);
  EXPECT_EQ(generator_.calls(), 2);
}

}  // namespace
}  // namespace saguaro::handoff
