// libFuzzer target: generated text read for tool calls (runtime-min/src/tool_calls.cpp), in the syntax the first
// byte picks (Qwen3, Llama 3, Gemma 4), and the same bytes as a completion's options with tools and tool_choice.
// A model's output is untrusted text: every call read must hold a JSON object as its arguments.
#include <nlohmann/json.hpp>

#include "saguaro/tool_calls.h"
#include "saguaro/tool_request.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace saguaro;
  if (size < 1) return 0;
  static const ToolCallSyntax kSyntaxes[] = {ToolCallSyntax::kHermes, ToolCallSyntax::kLlama3, ToolCallSyntax::kGemma4};
  const ToolCallSyntax syntax = kSyntaxes[data[0] % 3];
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  std::string content, err;
  std::vector<ParsedToolCall> calls;
  if (parse_tool_calls(syntax, text, &content, &calls, &err)) {
    for (const ParsedToolCall& c : calls)
      if (c.name.empty() || !nlohmann::json::parse(c.arguments, nullptr, false).is_object()) __builtin_trap();
  } else if (err.empty()) {
    __builtin_trap();  // a refusal always says why
  }
  if (tool_free_prefix(syntax, text) > text.size()) __builtin_trap();
  ToolRequest request;
  if (!read_tool_request(text, &request, &err) && err.empty()) __builtin_trap();
  return 0;
}
