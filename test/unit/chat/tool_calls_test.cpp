// Tool calls read from model output (saguaro/tool_calls.h), the request's tools and tool_choice
// (saguaro/tool_request.h) and one completion's tool side (tool_answer.h): each family's syntax over texts written
// by hand from its template, the stream's hold-back, and one clear error per bad call or request. The calls each
// compiled template renders are read back in chat_tools_test.cpp (ChatTools.RenderedCallsReadBack).
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "saguaro/json_schema_mask.h"
#include "saguaro/tool_calls.h"
#include "saguaro/tool_request.h"
#include "fuzz_findings.h"
#include "test_util.h"
#include "tool_answer.h"

namespace saguaro {
namespace {

struct Read {
  bool ok;
  std::string content;
  std::vector<ParsedToolCall> calls;
  std::string err;
};

Read read(ToolCallSyntax syntax, const std::string& text) {
  Read r;
  r.ok = parse_tool_calls(syntax, text, &r.content, &r.calls, &r.err);
  return r;
}

TEST(ToolCalls, Qwen3Blocks) {
  const Read r = read(ToolCallSyntax::kHermes,
                      "Let me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\", "
                      "\"days\": 2}}\n</tool_call>\n<tool_call>\n{\"name\": \"now\", \"arguments\": \"{}\"}\n</tool_call>");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(r.content, "Let me check.");
  ASSERT_EQ(r.calls.size(), 2u);
  EXPECT_EQ(r.calls[0].name, "get_weather");
  EXPECT_EQ(r.calls[0].arguments, R"({"city":"Oslo","days":2})");  // the model's key order, compact
  EXPECT_EQ(r.calls[1].name, "now");
  EXPECT_EQ(r.calls[1].arguments, "{}");  // a JSON string holding the object
  const Read plain = read(ToolCallSyntax::kHermes, "  No tools needed: 42.\n");
  ASSERT_TRUE(plain.ok);
  EXPECT_EQ(plain.content, "No tools needed: 42.");
  EXPECT_TRUE(plain.calls.empty());
}

TEST(ToolCalls, Llama3WholeAnswer) {
  Read r = read(ToolCallSyntax::kLlama3, "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Oslo\"}}");
  ASSERT_TRUE(r.ok) << r.err;
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].name, "get_weather");
  EXPECT_EQ(r.calls[0].arguments, R"({"city":"Oslo"})");
  EXPECT_EQ(r.content, "");
  r = read(ToolCallSyntax::kLlama3, "<|python_tag|>{\"name\": \"now\", \"arguments\": {}}");
  ASSERT_TRUE(r.ok) << r.err;
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].name, "now");
  // JSON that does not open like a call is an answer, not a call.
  r = read(ToolCallSyntax::kLlama3, "{\"answer\": 42}");
  ASSERT_TRUE(r.ok);
  EXPECT_TRUE(r.calls.empty());
  EXPECT_EQ(r.content, "{\"answer\": 42}");
}

TEST(ToolCalls, Gemma4Syntax) {
  const Read r = read(ToolCallSyntax::kGemma4,
                      "<|tool_call>call:get_weather{City:<|\"|>Oslo, {Norway}<|\"|>,days:2,opts:{metric:true,"
                      "note:null},tags:[<|\"|>a<|\"|>,1.5]}<tool_call|><|tool_call>call:now{}<tool_call|>Done.");
  ASSERT_TRUE(r.ok) << r.err;
  ASSERT_EQ(r.calls.size(), 2u);
  EXPECT_EQ(r.calls[0].name, "get_weather");
  EXPECT_EQ(r.calls[0].arguments,
            R"({"City":"Oslo, {Norway}","days":2,"opts":{"metric":true,"note":null},"tags":["a",1.5]})");
  EXPECT_EQ(r.calls[1].name, "now");
  EXPECT_EQ(r.calls[1].arguments, "{}");
  EXPECT_EQ(r.content, "Done.");
}

TEST(ToolCalls, BadCallsAreOneLineEach) {
  const std::pair<ToolCallSyntax, std::pair<std::string, std::string>> bad[] = {
      {ToolCallSyntax::kHermes, {"<tool_call>\n{\"name\": \"f\", \"arguments\": {}}", "tool call 0: <tool_call> is not closed"}},
      {ToolCallSyntax::kHermes, {"<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": }</tool_call>", "tool call 0: not a JSON object"}},
      {ToolCallSyntax::kHermes, {"<tool_call>{\"arguments\": {}}</tool_call>", "tool call 0: no string \"name\""}},
      {ToolCallSyntax::kHermes, {"<tool_call>{\"name\": \"f\"}</tool_call>", "tool call 0: no \"arguments\" object"}},
      {ToolCallSyntax::kHermes, {"<tool_call>{\"name\": \"f\", \"arguments\": \"{x\"}</tool_call>", "the arguments string is not a JSON object"}},
      {ToolCallSyntax::kHermes, {"<tool_call>{\"name\": \"f\", \"arguments\": 3}</tool_call>", "\"arguments\" is not an object"}},
      {ToolCallSyntax::kLlama3, {"<|python_tag|>{\"name\": \"f\", \"parameters\": {", "tool call 0: not a JSON object"}},
      {ToolCallSyntax::kGemma4, {"<|tool_call>call:f{a:1}", "tool call 0: <|tool_call>call: is not closed"}},
      {ToolCallSyntax::kGemma4, {"<|tool_call>call:f{a:<|\"|>x}<tool_call|>", "a <|\"|> string is not closed"}},
      {ToolCallSyntax::kGemma4, {"<|tool_call>call:f{a:oops}<tool_call|>", "\"oops\" is not a value"}},
      {ToolCallSyntax::kGemma4, {"<|tool_call>call:f{a:1}x<tool_call|>", "text after the arguments: x"}},
      {ToolCallSyntax::kGemma4, {"<|tool_call>call:{a:1}<tool_call|>", "expected call:NAME{...}"}},
      {ToolCallSyntax::kGemma4, {"<|tool_call>call:f{a:<|\"|>\xee\x65<|\"|>}<tool_call|>", "the arguments are not valid UTF-8"}},
      {ToolCallSyntax::kHermes, {"<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": \"\xee\x65\"}}</tool_call>", "not a JSON object"}},
  };
  for (const auto& [syntax, c] : bad) {
    const Read r = read(syntax, c.first);
    EXPECT_FALSE(r.ok) << c.first;
    EXPECT_NE(r.err.find(c.second), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find('\n'), std::string::npos) << r.err;
  }
}

// Every input fuzz_tool_calls found (test/fuzz/regressions/fuzz_tool_calls/) is checked as the target checks it: as
// model output in the syntax its first byte picks, read or refused with a reason, and as options, read or refused
// with a reason (no exception escapes either).
TEST(ToolCalls, FuzzRegressionsAreReadOrRefusedCleanly) {
  std::string non_utf8_value;
  const int seen = test::for_each_fuzz_finding("fuzz_tool_calls", [&](const std::string& path,
                                                                      const std::string& bytes) {
    ASSERT_FALSE(bytes.empty()) << path;
    const ToolCallSyntax syntax[] = {ToolCallSyntax::kHermes, ToolCallSyntax::kLlama3, ToolCallSyntax::kGemma4};
    const Read r = read(syntax[static_cast<unsigned char>(bytes[0]) % 3], bytes.substr(1));
    EXPECT_TRUE(r.ok || !r.err.empty()) << path;
    ToolRequest request;
    std::string err;
    EXPECT_TRUE(read_tool_request(bytes.substr(1), &request, &err) || !err.empty()) << path;
    if (std::filesystem::path(path).filename() == "gemma4-non-utf8-value") non_utf8_value = bytes;
  });
  EXPECT_GE(seen, 2);
  ASSERT_FALSE(non_utf8_value.empty());
  EXPECT_FALSE(read(ToolCallSyntax::kGemma4, non_utf8_value.substr(1)).ok);
}

TEST(ToolCalls, StreamHoldsBackWhatMayBecomeACall) {
  EXPECT_EQ(tool_free_prefix(ToolCallSyntax::kHermes, "Sure.\n<tool_"), 6u);
  EXPECT_EQ(tool_free_prefix(ToolCallSyntax::kHermes, "Sure.\n<tool_call>\n{"), 6u);
  EXPECT_EQ(tool_free_prefix(ToolCallSyntax::kHermes, "a < b"), 5u);
  EXPECT_EQ(tool_free_prefix(ToolCallSyntax::kHermes, "a <"), 2u);
  EXPECT_EQ(tool_free_prefix(ToolCallSyntax::kGemma4, "x<|tool_call>call:f{"), 1u);
  EXPECT_EQ(tool_free_prefix(ToolCallSyntax::kLlama3, " {\"na"), 0u);
  EXPECT_EQ(tool_free_prefix(ToolCallSyntax::kLlama3, "<|python"), 0u);
  EXPECT_EQ(tool_free_prefix(ToolCallSyntax::kLlama3, "{\"answer"), 8u);
  EXPECT_EQ(tool_free_prefix(ToolCallSyntax::kLlama3, "Hello"), 5u);
}

constexpr const char* kTools =
    R"({"tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}},
                  {"type": "function", "function": {"name": "now"}}])";

TEST(ToolRequest, ReadsToolsAndChoice) {
  ToolRequest r;
  std::string err;
  ASSERT_TRUE(read_tool_request(std::string(kTools) + "}", &r, &err)) << err;
  EXPECT_EQ(r.names, (std::vector<std::string>{"get_weather", "now"}));
  EXPECT_EQ(r.choice, ToolRequest::kAuto);
  EXPECT_TRUE(r.active());
  EXPECT_EQ(r.tools[0], R"({"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}})");
  ASSERT_TRUE(read_tool_request(std::string(kTools) + R"(, "tool_choice": "none"})", &r, &err)) << err;
  EXPECT_FALSE(r.active());
  ASSERT_TRUE(read_tool_request(std::string(kTools) + R"(, "tool_choice": "required"})", &r, &err)) << err;
  EXPECT_EQ(r.choice, ToolRequest::kRequired);
  ASSERT_TRUE(read_tool_request(std::string(kTools) + R"(, "tool_choice": {"type": "function", "function": {"name": "now"}}})", &r, &err));
  EXPECT_EQ(r.choice, ToolRequest::kNamed);
  EXPECT_EQ(r.named, "now");
  ASSERT_TRUE(read_tool_request(R"({"max_tokens": 3})", &r, &err));
  EXPECT_FALSE(r.active());
}

TEST(ToolRequest, BadToolsAreOneLineEach) {
  const std::pair<std::string, std::string> bad[] = {
      {R"({"tools": {"type": "function"}})", "\"tools\": tools: expected a JSON array"},
      {R"({"tools": [{"type": "function", "function": {"description": "x"}}]})", "tools[0]: \"function\" needs a string \"name\""},
      {R"({"tools": [{"type": "retrieval"}]})", "tools[0]: expected {\"type\": \"function\""},
      {std::string(kTools) + R"(, "tool_choice": "always"})", "\"tool_choice\": expected \"auto\", \"none\""},
      {std::string(kTools) + R"(, "tool_choice": {"type": "function", "function": {"name": "f"}}})", "names \"f\", which is not among the tools"},
      // found by fuzz_tool_calls (test/fuzz/regressions/fuzz_tool_calls/tool-choice-type-object): "type" not a string
      {std::string(kTools) + R"(, "tool_choice": {"type": {"name": "f"}}})", "\"tool_choice\": expected \"auto\""},
      {R"({"tool_choice": "required"})", "\"tool_choice\": given without \"tools\""},
      {R"({"tools": [{"type": "function", "function": {"name": "f"}}, {"type": "function", "function": {"name": "f"}}]})",
       "tools[1] repeats the name \"f\""},
  };
  for (const auto& [text, want] : bad) {
    ToolRequest r;
    std::string err;
    EXPECT_FALSE(read_tool_request(text, &r, &err)) << text;
    EXPECT_NE(err.find(want), std::string::npos) << err;
  }
}

TEST(ToolRequest, CallsBecomeOpenAIToolCalls) {
  ToolRequest r;
  std::string err;
  ASSERT_TRUE(read_tool_request(std::string(kTools) + "}", &r, &err)) << err;
  nlohmann::json calls;
  ASSERT_TRUE(tool_calls_json({{"get_weather", R"({"city":"Oslo"})"}, {"now", "{}"}}, r, &calls, &err)) << err;
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0]["type"], "function");
  EXPECT_EQ(calls[0]["function"], (nlohmann::json{{"name", "get_weather"}, {"arguments", R"({"city":"Oslo"})"}}));
  EXPECT_EQ(calls[0]["id"].get<std::string>().rfind("call_", 0), 0u);
  EXPECT_NE(calls[0]["id"], calls[1]["id"]);
  EXPECT_FALSE(tool_calls_json({{"get_time", "{}"}}, r, &calls, &err));
  EXPECT_EQ(err, "tool call 0 names \"get_time\", which is not among the tools (get_weather, now)");
  ASSERT_TRUE(read_tool_request(std::string(kTools) + R"(, "tool_choice": {"type": "function", "function": {"name": "now"}}})", &r, &err));
  EXPECT_FALSE(tool_calls_json({{"get_weather", "{}"}}, r, &calls, &err));
  EXPECT_NE(err.find("but tool_choice asked for \"now\""), std::string::npos) << err;
}

// A template whose calls are Qwen3's <tool_call> blocks (the pieces that matter for reading them).
ChatTemplate hermes_template() {
  ChatTemplate t;
  t.flags = ChatTemplate::kTools | ChatTemplate::kToolCalls;
  t.pieces[ChatTemplate::kCallOpen] = "<tool_call>\n{\"name\": \"";
  return t;
}

TEST(ToolAnswer, StreamsContentAndReturnsCalls) {
  const ChatTemplate t = hermes_template();
  ToolAnswer answer;
  std::string err;
  ASSERT_TRUE(answer.init(std::string(kTools) + "}", &t, &err)) << err;
  EXPECT_EQ(answer.prompt_tools().size(), 2u);
  EXPECT_EQ(answer.forced_opening(), "");
  std::string shown;
  auto sink = answer.filter([&](const std::string& piece, uint32_t) { shown += piece; });
  std::string text;
  for (const char* piece : {"Checking", " <", "tool_call>\n{\"name\": \"now\", ", "\"arguments\": {}}\n</tool_call>"}) {
    text += piece;
    sink(piece, 7);
  }
  std::string content;
  nlohmann::json fields;
  ASSERT_TRUE(answer.finish(text, "stop", &content, &fields, &err)) << err;
  EXPECT_EQ(shown, "Checking ");  // the call never went out as text
  EXPECT_EQ(content, "Checking");
  EXPECT_EQ(fields["finish_reason"], "tool_calls");
  ASSERT_EQ(fields["tool_calls"].size(), 1u);
  EXPECT_EQ(fields["tool_calls"][0]["function"]["name"], "now");
}

TEST(ToolAnswer, AnswerWithoutCallsIsAllShown) {
  const ChatTemplate t = hermes_template();
  ToolAnswer answer;
  std::string err;
  ASSERT_TRUE(answer.init(std::string(kTools) + "}", &t, &err)) << err;
  std::string shown;
  auto sink = answer.filter([&](const std::string& piece, uint32_t) { shown += piece; });
  sink("It is 3 <", 1);
  EXPECT_EQ(shown, "It is 3 ");
  std::string content;
  nlohmann::json fields;
  ASSERT_TRUE(answer.finish("It is 3 <", "length", &content, &fields, &err)) << err;
  EXPECT_EQ(shown, "It is 3 <");  // the held tail was no call
  EXPECT_EQ(fields["finish_reason"], "length");
  EXPECT_TRUE(fields["tool_calls"].empty());
}

// The bytes a forced call's grammar accepts, fed through the token mask's matcher (one token per byte).
bool grammar_accepts(const ToolAnswer& answer, const std::string& text) {
  std::vector<std::string> bytes(256);
  for (int b = 0; b < 256; ++b) bytes[b] = std::string(1, char(b));
  JsonMask mask(answer.grammar(), std::make_shared<TokenTrie>(bytes, std::vector<int32_t>{}));
  return mask.feed(text) && mask.complete();
}

TEST(ToolAnswer, ForcedCallsAndRefusals) {
  const ChatTemplate t = hermes_template();
  ToolAnswer answer;
  std::string err, content;
  nlohmann::json fields;
  // A named function: the prompt opens its call, the mask takes its parameters, the closing is added.
  ASSERT_TRUE(answer.init(std::string(kTools) + R"(, "tool_choice": {"type": "function", "function": {"name": "now"}}})",
                          &t, &err));
  EXPECT_EQ(answer.forced_opening(), "<tool_call>\n{\"name\": \"now\", \"arguments\": ");
  ASSERT_TRUE(answer.grammar());
  EXPECT_TRUE(grammar_accepts(answer, R"({"x":[1]})"));  // no "parameters": any object
  EXPECT_FALSE(grammar_accepts(answer, "[1]"));
  ASSERT_TRUE(answer.finish("{}", "stop", &content, &fields, &err)) << err;
  EXPECT_EQ(fields["tool_calls"][0]["function"]["arguments"], "{}");
  EXPECT_EQ(fields["finish_reason"], "tool_calls");
  EXPECT_FALSE(answer.finish("{\"a\": ", "length", &content, &fields, &err));
  EXPECT_EQ(err.rfind("model output: tool call 0: ", 0), 0u) << err;
  // "required": the mask takes any offered function with its parameters.
  ASSERT_TRUE(answer.init(std::string(kTools) + R"(, "tool_choice": "required"})", &t, &err));
  EXPECT_EQ(answer.forced_opening(), "<tool_call>\n");
  EXPECT_TRUE(grammar_accepts(answer, R"({"name":"get_weather","arguments":{}})"));
  EXPECT_TRUE(grammar_accepts(answer, R"({"name":"now","arguments":{"a":1}})"));
  EXPECT_FALSE(grammar_accepts(answer, R"({"name":"get_time","arguments":{}})"));
  EXPECT_FALSE(grammar_accepts(answer, R"({"name":"get_weather","arguments":[]})"));
  ASSERT_TRUE(answer.finish(R"({"name":"now","arguments":{"a":1}})", "stop", &content, &fields, &err)) << err;
  EXPECT_EQ(fields["tool_calls"][0]["function"]["arguments"], R"({"a":1})");
  // Parameters the mask cannot take are refused before anything runs.
  EXPECT_FALSE(answer.init(R"({"tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "wat"}}}],
                               "tool_choice": "required"})", &t, &err));
  EXPECT_EQ(err.rfind("options_json: \"tools\": the parameters are no schema the token mask takes: ", 0), 0u) << err;
  // A template that renders no tool list, or no template, cannot take tools.
  EXPECT_FALSE(answer.init(std::string(kTools) + "}", nullptr, &err));
  EXPECT_NE(err.find("options_json: \"tools\": the bundle has no chat template"), std::string::npos) << err;
  const ChatTemplate plain;
  EXPECT_FALSE(answer.init(std::string(kTools) + "}", &plain, &err));
  EXPECT_NE(err.find("the model's chat template cannot express tools"), std::string::npos) << err;
}

}  // namespace
}  // namespace saguaro
