// Tool calls in a model's output: each supported family's syntax, read back into OpenAI's `tool_calls` shape
// (name + arguments as a JSON string). The family is the one the compiled chat template renders calls in, so a
// model is read in the syntax its own template taught it.
#pragma once

#include <string>
#include <vector>

#include "saguaro/chat_template.h"

namespace saguaro {

/// How a model writes a tool call.
enum class ToolCallSyntax {
  kNone,     // the template renders no tool list: tools are refused
  kHermes,   // Qwen3: <tool_call>\n{"name": N, "arguments": {...}}\n</tool_call>, one block per call
  kLlama3,   // Llama 3.x: the whole answer is {"name": N, "parameters": {...}}, optionally after <|python_tag|>
  kGemma4,   // Gemma 4: <|tool_call>call:N{key:value,...}<tool_call|>, strings between <|"|> quotes
};

/// The syntax of the calls `t` renders; kNone when it renders no tool list, or calls in a form not listed above
/// (`why` then says which).
ToolCallSyntax tool_call_syntax(const ChatTemplate& t, std::string* why);

/// One call read from the output: the function's name and its arguments as compact JSON text of an object.
struct ParsedToolCall {
  std::string name;
  std::string arguments;
};

/// Splits generated `text` into the content outside the calls (Python-stripped) and the calls, in order. False +
/// "tool call K: problem" when a call is opened but not closed, its name is missing or its arguments do not parse.
bool parse_tool_calls(ToolCallSyntax syntax, const std::string& text, std::string* content,
                      std::vector<ParsedToolCall>* calls, std::string* err);

/// How many bytes at the start of `text` (the output so far) may be shown as content while generating: everything
/// before the first call's opening, and before a tail that could still grow into one (a stream must not show a
/// call as text and then take it back).
size_t tool_free_prefix(ToolCallSyntax syntax, const std::string& text);

/// How the answer is made a call when tool_choice asks for one: the prompt is extended by `opening`, the model
/// writes the JSON value `schema` describes (a JSON Schema, given to the token mask of saguaro/json_schema_mask.h;
/// empty for Gemma 4, whose arguments are not JSON: the model then writes the rest of the call unconstrained), and
/// `closing` follows it. The text to read for calls is opening + the value + closing.
struct ForcedCall {
  std::string opening, schema, closing;
};

/// The forced call to `name` (empty: to any of `tools`, each a tool's JSON text); a tool without "parameters" takes
/// any object.
ForcedCall forced_call(ToolCallSyntax syntax, const std::vector<std::string>& tools, const std::string& name);

}  // namespace saguaro
