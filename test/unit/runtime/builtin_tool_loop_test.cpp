// One round of the built-in tool loop (builtin_tool_loop.h): the options read, built-in calls run and appended to
// the conversation, tool errors fed back as results, and answers with other calls (or none) left final.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "builtin_tool_loop.h"

namespace saguaro {
namespace {

using nlohmann::json;

json calls(std::initializer_list<std::pair<const char*, const char*>> named) {
  json c = json::array();
  for (const auto& [name, args] : named)
    c.push_back({{"id", "call_0"}, {"type", "function"}, {"function", {{"name", name}, {"arguments", args}}}});
  return {{"tool_calls", c}, {"finish_reason", "tool_calls"}};
}

TEST(BuiltinToolLoop, ReadsTheOptions) {
  std::vector<std::string> names;
  std::string err;
  ASSERT_TRUE(read_builtin_tools(json{{"builtin_tools", {"units", "math"}}}, &names, &err)) << err;
  EXPECT_EQ(names, (std::vector<std::string>{"units", "math"}));
  ASSERT_TRUE(read_builtin_tools(json::object(), &names, &err));
  EXPECT_TRUE(names.empty());
  EXPECT_FALSE(read_builtin_tools(json{{"builtin_tools", "math"}}, &names, &err));
  EXPECT_EQ(err, "\"builtin_tools\" must be an array of names (math, dates, units)");
  EXPECT_FALSE(read_builtin_tools(json{{"builtin_tools", {"math", "web"}}}, &names, &err));
  EXPECT_EQ(err, "\"builtin_tools\": \"web\" is not a built-in tool (math, dates, units)");
  EXPECT_FALSE(read_builtin_tools(json{{"builtin_tools", {"math", "math"}}}, &names, &err));
  EXPECT_EQ(err, "\"builtin_tools\": \"math\" is given twice");
}

TEST(BuiltinToolLoop, RunsBuiltinCallsAndFeedsResultsBack) {
  std::vector<ChatMessage> messages = {{"user", "What is 48 + 57?", {}, {}}};
  json ran = json::array();
  ASSERT_TRUE(run_builtin_round({"math"}, "", calls({{"math", R"({"expression":"48 + 57"})"},
                                                     {"math", R"({"expression":"1/0"})"}}),
                                &messages, &ran));
  ASSERT_EQ(messages.size(), 4u);
  EXPECT_EQ(messages[1].role, "assistant");
  ASSERT_EQ(messages[1].tool_calls.size(), 2u);
  EXPECT_EQ(messages[1].tool_calls[0].name, "math");
  EXPECT_EQ(messages[1].tool_calls[0].arguments, R"({"expression":"48 + 57"})");
  EXPECT_EQ(messages[2].role, "tool");
  EXPECT_EQ(messages[2].content, "105");
  EXPECT_EQ(messages[3].content, "math: division by zero");  // a tool error is the tool's answer
  EXPECT_EQ(ran, json::parse(R"([{"name": "math", "arguments": "{\"expression\":\"48 + 57\"}", "result": "105"},
                                 {"name": "math", "arguments": "{\"expression\":\"1/0\"}", "error": "math: division by zero"}])"));
}

TEST(BuiltinToolLoop, OtherCallsAndPlainAnswersAreFinal) {
  std::vector<ChatMessage> messages = {{"user", "Weather?", {}, {}}};
  json ran = json::array();
  // A call to the caller's own tool (even beside a built-in one) goes back to the caller.
  EXPECT_FALSE(run_builtin_round({"math"}, "", calls({{"math", "{}"}, {"get_weather", "{}"}}), &messages, &ran));
  EXPECT_FALSE(run_builtin_round({"math"}, "", calls({{"dates", "{}"}}), &messages, &ran));  // not enabled
  EXPECT_FALSE(run_builtin_round({"math"}, "42", {{"tool_calls", json::array()}, {"finish_reason", "stop"}}, &messages,
                                 &ran));
  EXPECT_FALSE(run_builtin_round({}, "", calls({{"math", "{}"}}), &messages, &ran));
  EXPECT_EQ(messages.size(), 1u);
  EXPECT_TRUE(ran.empty());
}

}  // namespace
}  // namespace saguaro
