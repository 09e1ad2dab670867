// Tool data in chat templates: the print formats (expected text written by hand from Python's json.dumps rules and
// Gemma 4's template), the messages/tools parser, and the conversations a compiled template refuses, each with one
// clear message. Whole-template equality with Python jinja2 is test/e2e/test_chat_render.py.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "ChatCompiler.h"
#include "saguaro/chat_messages.h"
#include "saguaro/chat_template.h"
#include "saguaro/tool_calls.h"
#include "test_util.h"

namespace saguaro {
namespace {

std::string fixture(const std::string& name) { return test::read_file(std::string(SAGUARO_CHAT_FIXTURES) + "/" + name); }

ChatTemplate compiled(const std::string& name, const std::string& bos = "") {
  ChatTemplateOptions opts;
  opts.bos_token = bos;
  std::vector<uint8_t> bytes;
  std::string err;
  EXPECT_TRUE(compile_chat_template(fixture(name), opts, &bytes, &err)) << err;
  ChatTemplate t;
  EXPECT_TRUE(ChatTemplate::parse(bytes.data(), bytes.size(), &t, &err)) << err;
  return t;
}

std::string json(const std::string& text, int indent = -1) {
  std::string out, err;
  EXPECT_TRUE(python_json(text, indent, &out, &err)) << err;
  return out;
}

TEST(ToolFormat, PythonJsonDumps) {
  EXPECT_EQ(json(R"({"b": [1, 2.5, true, null], "a": {}, "c": []})"), R"({"b": [1, 2.5, true, null], "a": {}, "c": []})");
  // repr(): shortest digits, exponent form below 1e-4 and from 1e16, at least two exponent digits.
  EXPECT_EQ(json("[0.1, 1e-05, 0.0001, 1e16, 1e15, 123456.789, -3.0, 2.5e-7, 1e22, -0.0]"),
            "[0.1, 1e-05, 0.0001, 1e+16, 1000000000000000.0, 123456.789, -3.0, 2.5e-07, 1e+22, -0.0]");
  // ensure_ascii=False: only quotes, backslashes and control characters are escaped.
  EXPECT_EQ(json("[\"Z\\u00fcrich \\\"q\\\" \\\\ \\n\\t\\u0001\\u007f\"]"), "[\"Zürich \\\"q\\\" \\\\ \\n\\t\\u0001\x7f\"]");
  EXPECT_EQ(json(R"({"a": [1, {"b": null}], "e": {}})", 4),
            "{\n    \"a\": [\n        1,\n        {\n            \"b\": null\n        }\n    ],\n    \"e\": {}\n}");
  std::string out, err;
  EXPECT_FALSE(python_json("{", -1, &out, &err));
}

TEST(ToolFormat, GemmaDeclarationAndArguments) {
  const std::string tool = R"({"type": "function", "function": {"name": "get_weather", "description": "Now",
      "parameters": {"type": "object", "properties": {"unit": {"type": "string", "enum": ["c", "f"]},
      "City": {"type": "string", "description": "name"}, "opts": {"type": "object", "properties": {"x": {"type":
      "integer"}}}, "tags": {"type": "array", "items": {"type": "string"}}}, "required": ["City"]}}})";
  std::string out, err;
  ASSERT_TRUE(format_tool(ToolListFormat::kGemma4, tool, &out, &err)) << err;
  EXPECT_EQ(out,
            "declaration:get_weather{description:<|\"|>Now<|\"|>,parameters:{properties:{"
            "City:{description:<|\"|>name<|\"|>,type:<|\"|>STRING<|\"|>},"
            "opts:{,properties:{x:{type:<|\"|>INTEGER<|\"|>}}type:<|\"|>OBJECT<|\"|>},"
            "tags:{,items:{type:<|\"|>STRING<|\"|>}type:<|\"|>ARRAY<|\"|>},"
            "unit:{enum:[<|\"|>c<|\"|>,<|\"|>f<|\"|>],type:<|\"|>STRING<|\"|>}},"
            "required:[<|\"|>City<|\"|>],type:<|\"|>OBJECT<|\"|>}}");
  ASSERT_TRUE(format_tool_arguments(ToolArgsFormat::kGemma4, false,
                                    R"({"b": [1, 2.5, true, null], "A": {"y": "s", "x": false}})", &out, &err));
  EXPECT_EQ(out, "A:{x:false,y:<|\"|>s<|\"|>},b:[1,2.5,true,None]");
  ASSERT_TRUE(format_tool_arguments(ToolArgsFormat::kGemma4, false, R"("{\"q\": 1}")", &out, &err));
  EXPECT_EQ(out, "{\"q\": 1}");  // a string is printed as it is
  ASSERT_TRUE(format_tool_arguments(ToolArgsFormat::kJson, true, R"("{\"q\": 1}")", &out, &err));
  EXPECT_EQ(out, "\"{\\\"q\\\": 1}\"");  // ... or as a JSON string (Llama 3.1's tojson)
  EXPECT_FALSE(format_tool_arguments(ToolArgsFormat::kGemma4, false, "[1]", &out, &err));
  EXPECT_FALSE(format_tool(ToolListFormat::kGemma4, R"({"type": "function"})", &out, &err));
  EXPECT_NE(err.find("\"function\""), std::string::npos) << err;
  EXPECT_EQ(format_tool_content(ToolContentFormat::kJson, "a\"\n"), "\"a\\\"\\n\"");
  EXPECT_EQ(format_tool_content(ToolContentFormat::kTrim, " \n a \t"), "a");
}

TEST(ChatMessages, ParsesToolCallsAndRefusesBadShapes) {
  ChatRequest request;
  const std::vector<ChatMessage>& msgs = request.messages;
  std::string err;
  ASSERT_TRUE(parse_chat_messages(R"([{"role": "user", "content": "hi"}, {"role": "assistant", "content": null,
      "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": {"z": 1, "a": 2}}}]},
      {"role": "tool", "tool_call_id": "c1", "content": "3"}])", false, &request, &err)) << err;
  ASSERT_EQ(msgs.size(), 3u);
  EXPECT_EQ(msgs[1].content, "");
  ASSERT_EQ(msgs[1].tool_calls.size(), 1u);
  EXPECT_EQ(msgs[1].tool_calls[0].name, "f");
  EXPECT_EQ(msgs[1].tool_calls[0].arguments, R"({"z":1,"a":2})");  // the caller's key order
  const std::pair<const char*, const char*> bad[] = {
      {"{", "not valid JSON"},
      {"{}", "expected a JSON array"},
      {R"([{"content": "x"}])", "messages[0]: needs a string \"role\""},
      {R"([{"role": "user"}])", "messages[0] (user): needs a \"content\" string or array of parts"},
      {R"([{"role": "user", "content": [{"type": "text"}]}])", "messages[0].content[0]: a text part needs a string"},
      {R"([{"role": "user", "content": 5}])", "\"content\" must be a string or an array of parts"},
      {R"([{"role": "user", "content": "x", "tool_calls": []}])", "only assistant messages"},
      {R"([{"role": "assistant", "content": "", "tool_calls": [{"function": {"arguments": "{}"}}]}])",
       "messages[0].tool_calls[0]: \"function\" needs a non-empty string \"name\""},
      {R"([{"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "f", "arguments": 1}}]}])",
       "\"arguments\", a JSON string or an object"},
      {R"([{"role": "assistant", "content": "", "tool_calls": [{"type": "x", "function": {"name": "f"}}]}])",
       "\"type\" must be \"function\""},
  };
  for (const auto& [text, want] : bad) {
    EXPECT_FALSE(parse_chat_messages(text, false, &request, &err)) << text;
    EXPECT_NE(err.find(want), std::string::npos) << err;
  }
  std::vector<std::string> tools;
  EXPECT_FALSE(parse_chat_tools(R"([{"type": "function", "function": {}}])", &tools, &err));
  EXPECT_NE(err.find("tools[0]: \"function\" needs a string \"name\""), std::string::npos) << err;
  EXPECT_FALSE(parse_chat_tools(R"([{"type": "code_interpreter"}])", &tools, &err));
  ASSERT_TRUE(parse_chat_tools(R"([{"type": "function", "function": {"name": "f", "b": 1, "a": 2}}])", &tools, &err));
  EXPECT_EQ(tools[0], R"({"type":"function","function":{"name":"f","b":1,"a":2}})");
}

TEST(ChatTools, FeaturesFoundInTheThreeTemplates) {
  const ChatTemplate qwen = compiled("qwen3.jinja");
  EXPECT_EQ(qwen.flags & ChatTemplate::kKnownFlags & ~7u,
            ChatTemplate::kSystemAnywhere | ChatTemplate::kToolMessages | ChatTemplate::kToolCalls | ChatTemplate::kTools);
  EXPECT_EQ(qwen.tools_format, ToolListFormat::kJson);
  EXPECT_EQ(qwen.tool_content_format, ToolContentFormat::kRaw);
  const ChatTemplate llama = compiled("llama3.jinja", "<|begin_of_text|>");
  EXPECT_TRUE(llama.flags & ChatTemplate::kSingleToolCall);
  EXPECT_TRUE(llama.flags & ChatTemplate::kContentDroppedWithCalls);
  EXPECT_TRUE(llama.flags & ChatTemplate::kStringArgumentsAsJson);
  EXPECT_TRUE(llama.flags & ChatTemplate::kToolsNeedUserFirst);
  EXPECT_EQ(llama.tools_format, ToolListFormat::kJsonIndent4);
  EXPECT_EQ(llama.tool_content_format, ToolContentFormat::kJson);
  const ChatTemplate gemma = compiled("gemma4-tools/chat_template.jinja", "<bos>");
  EXPECT_TRUE(gemma.flags & ChatTemplate::kContentAfterCalls);
  EXPECT_EQ(gemma.tools_format, ToolListFormat::kGemma4);
  EXPECT_EQ(gemma.args_format, ToolArgsFormat::kGemma4);
  EXPECT_EQ(gemma.tool_content_format, ToolContentFormat::kTrim);
}

// Qwen3's prompt for a tool round trip, written out by hand from its template.
TEST(ChatTools, Qwen3RoundTripByHand) {
  const ChatTemplate t = compiled("qwen3.jinja");
  const std::vector<ChatMessage> msgs = {
      {"system", "Be brief.", {}},
      {"user", "Weather in Oslo?", {}},
      {"assistant", "", {}, {{"get_weather", R"("{\"city\": \"Oslo\"}")"}, {"now", R"({})"}}},
      {"tool", "12 C", {}},
      {"tool", "noon", {}}};
  const std::vector<std::string> tools = {R"({"type": "function", "function": {"name": "now"}})"};
  std::string prompt, err;
  ASSERT_TRUE(t.apply(msgs, tools, true, false, &prompt, &err)) << err;
  EXPECT_EQ(prompt,
            "<|im_start|>system\nBe brief.\n\n# Tools\n\nYou may call one or more functions to assist with the user "
            "query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
            "{\"type\": \"function\", \"function\": {\"name\": \"now\"}}\n</tools>\n\nFor each function call, return a "
            "json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n"
            "{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call><|im_end|>\n"
            "<|im_start|>user\nWeather in Oslo?<|im_end|>\n"
            "<|im_start|>assistant\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}\n"
            "</tool_call>\n<tool_call>\n{\"name\": \"now\", \"arguments\": {}}\n</tool_call><|im_end|>\n"
            "<|im_start|>user\n<tool_response>\n12 C\n</tool_response>\n<tool_response>\nnoon\n</tool_response>"
            "<|im_end|>\n<|im_start|>assistant\n");
}

// The tool-calling example model's template (examples/models/tools): the tool list as names only (its context is 256
// characters), calls in Qwen3's syntax, results on an "R: " line; the prompt of one round trip written out by hand.
TEST(ChatTools, ToolNamesTemplateOfTheToolsModel) {
  const nlohmann::json config = nlohmann::json::parse(
      test::read_file(std::string(SAGUARO_SOURCE_ROOT) + "/examples/models/tools/tokenizer_config.json"));
  ChatTemplateOptions opts;
  opts.bos_token = "<bos>";
  opts.eos_token = "<eos>";
  std::vector<uint8_t> bytes;
  std::string err;
  ASSERT_TRUE(compile_chat_template(config["chat_template"], opts, &bytes, &err)) << err;
  ChatTemplate t;
  ASSERT_TRUE(ChatTemplate::parse(bytes.data(), bytes.size(), &t, &err)) << err;
  EXPECT_EQ(t.tools_format, ToolListFormat::kName);
  EXPECT_EQ(tool_call_syntax(t, &err), ToolCallSyntax::kHermes) << err;
  const std::vector<ChatMessage> msgs = {{"user", "What is 48 + 57?", {}},
                                         {"assistant", "", {}, {{"math", R"({"expression":"48 + 57"})"}}},
                                         {"tool", "105", {}}};
  const std::vector<std::string> tools = {R"({"type": "function", "function": {"name": "math"}})",
                                          R"({"type": "function", "function": {"name": "units"}})"};
  std::string prompt;
  ASSERT_TRUE(t.apply(msgs, tools, true, false, &prompt, &err)) << err;
  EXPECT_EQ(prompt,
            "<bos>Tools: math units\nQ: What is 48 + 57?\nA: <tool_call>{\"name\": \"math\", \"arguments\": "
            "{\"expression\": \"48 + 57\"}}</tool_call>\n<eos>R: 105\nA:");
}

// A template that fails on tool data it does not expect still compiles: the part is left out with a note.
TEST(ChatTools, TemplateFailingOnToolDataLeavesThePartOut) {
  const std::string text =
      "{% for m in messages %}<{{ m.role }}>{{ m.content }}{% if m.tool_calls %}"
      "{{ m.tool_calls[0].function.arguments.upper() }}{% endif %}\n{% endfor %}";
  std::vector<uint8_t> bytes;
  std::vector<std::string> notes;
  std::string err;
  ASSERT_TRUE(compile_chat_template(text, {}, &bytes, &err, &notes)) << err;
  ChatTemplate t;
  ASSERT_TRUE(ChatTemplate::parse(bytes.data(), bytes.size(), &t, &err)) << err;
  EXPECT_FALSE(t.flags & ChatTemplate::kToolCalls);
  EXPECT_TRUE(t.flags & ChatTemplate::kToolMessages);  // "<tool>" turns need no tool data
  bool noted = false;
  for (const std::string& n : notes) noted |= n.rfind("tool calls: ", 0) == 0;
  EXPECT_TRUE(noted);
}

TEST(ChatTools, RefusalsNameTheProblem) {
  const ChatTemplate gemma3 = compiled("gemma3.jinja", "<bos>");
  const ChatTemplate llama = compiled("llama3.jinja", "<|begin_of_text|>");
  const std::vector<std::string> tools = {R"({"type": "function", "function": {"name": "now"}})"};
  const ChatMessage user{"user", "hi", {}}, call{"assistant", "", {}, {{"now", "{}"}}};
  auto refused = [](const ChatTemplate& t, const std::vector<ChatMessage>& m, const std::vector<std::string>& tl,
                    const std::string& want) {
    std::string prompt, err;
    EXPECT_FALSE(t.apply(m, tl, true, false, &prompt, &err)) << want;
    EXPECT_NE(err.find(want), std::string::npos) << err;
  };
  refused(gemma3, {user}, tools, "tools were given but this template does not render a tool list");
  refused(gemma3, {user, call, user}, {}, "this template does not render tool calls");
  refused(gemma3, {user, {"tool", "x", {}}}, {}, "this template does not render tool messages");
  refused(gemma3, {user, {"assistant", "a", {}}, {"system", "s", {}}}, {}, "a system message must be the first message");
  refused(llama, {user, {"assistant", "", {}, {{"now", "{}"}, {"now", "{}"}}}}, {}, "has 2 tool calls; this template renders one");
  refused(llama, {{"system", "s", {}}, {"assistant", "a", {}}}, tools, "one must follow the system message");
  refused(llama, {user}, {"[1]"}, "tools[0]: a tool must be a JSON object");
  refused(compiled("qwen3.jinja"), {user, {"assistant", "", {}, {{"now", "[1"}}}}, {}, "message 1, tool call 0");
  refused(llama, {{"developer", "d", {}}}, {}, "unsupported role 'developer'");
}

// What each template renders for an assistant's calls is read back as those calls, in the syntax the template's
// pieces say (the model reads and writes calls as its template shows them).
TEST(ChatTools, RenderedCallsReadBack) {
  struct Case {
    const char* file;
    const char* bos;
    ToolCallSyntax syntax;
    const char* turn_end;  // the end-of-turn token, which ends generation and is not part of the answer
    const char* marker;    // where the assistant's answer starts in the rendered text
  };
  const Case cases[] = {{"qwen3.jinja", "", ToolCallSyntax::kHermes, "<|im_end|>", "<tool_call>"},
                        {"llama3.jinja", "<|begin_of_text|>", ToolCallSyntax::kLlama3, "<|eot_id|>", "{\"name\""},
                        {"gemma4-tools/chat_template.jinja", "<bos>", ToolCallSyntax::kGemma4, "<turn|>", "<|tool_call>"}};
  const std::string args = R"({"city": "Oslo, \"NO\"", "days": 3, "opts": {"metric": true, "x": null}, "tags": ["a", 1.5]})";
  for (const Case& c : cases) {
    const ChatTemplate t = compiled(c.file, c.bos);
    std::string why;
    EXPECT_EQ(tool_call_syntax(t, &why), c.syntax) << c.file << ": " << why;
    const std::vector<ChatMessage> msgs = {{"user", "Weather?", {}}, {"assistant", "", {}, {{"get_weather", args}}}};
    std::string prompt, err;
    ASSERT_TRUE(t.apply(msgs, {}, false, false, &prompt, &err)) << c.file << ": " << err;
    const size_t from = prompt.find(c.marker);
    ASSERT_NE(from, std::string::npos) << prompt;
    const std::string answer = prompt.substr(from, prompt.find(c.turn_end, from) - from);
    std::string content;
    std::vector<ParsedToolCall> calls;
    ASSERT_TRUE(parse_tool_calls(c.syntax, answer, &content, &calls, &err)) << c.file << ": " << err << "\n" << answer;
    ASSERT_EQ(calls.size(), 1u) << c.file;
    EXPECT_EQ(calls[0].name, "get_weather") << c.file;
    // Gemma 4 prints keys sorted case-insensitively; the values are the same.
    EXPECT_EQ(nlohmann::json::parse(calls[0].arguments), nlohmann::json::parse(args)) << c.file << ": " << answer;
    EXPECT_EQ(content, "") << c.file;
  }
  std::string why;
  EXPECT_EQ(tool_call_syntax(compiled("gemma3.jinja", "<bos>"), &why), ToolCallSyntax::kNone);
  EXPECT_NE(why.find("cannot express tools"), std::string::npos) << why;
}

}  // namespace
}  // namespace saguaro
