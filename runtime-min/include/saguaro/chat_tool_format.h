// How chat templates print run-time tool data: the tool list, a tool call's arguments and a tool message's
// content, in the forms the supported templates use (transformers' `tojson`, Gemma 4's declaration syntax).
// The compiler picks the form whose output matches the template's rendering; the runtime prints with it.
#pragma once

#include <cstdint>
#include <string>

namespace saguaro {

/// How each tool of the list is printed.
enum class ToolListFormat : uint32_t {
  kJson = 0,         // tool | tojson  (json.dumps(ensure_ascii=False)), Qwen3
  kJsonIndent4 = 1,  // tool | tojson(indent=4), Llama 3.1
  kGemma4 = 2,       // format_function_declaration(tool) | trim, Gemma 4
  kName = 3,         // tool.function.name: a list of names, for a model whose context holds no declarations
                     // (examples/models/tools)
  kCount = 4
};

/// How the arguments object of a tool call is printed.
enum class ToolArgsFormat : uint32_t {
  kJson = 0,    // arguments | tojson
  kGemma4 = 1,  // key:format_argument(value, escape_keys=False), keys sorted case-insensitively, ',' between
  kCount = 2
};

/// How a tool message's content is printed.
enum class ToolContentFormat : uint32_t {
  kRaw = 0,
  kTrim = 1,  // Python str.strip()
  kJson = 2,  // content | tojson (Llama 3.1: a string is iterable, so it is printed as a JSON string)
  kCount = 3
};

/// The text of `tool_json` (one tool of the list, as JSON text) in `format`; false + err when the tool does not
/// parse or has a shape the format cannot print.
bool format_tool(ToolListFormat format, const std::string& tool_json, std::string* out, std::string* err);

/// The text of a tool call's arguments (`arguments_json`: JSON text of an object or a string). A string is printed
/// as it is unless `string_as_json` (then as a JSON string literal).
bool format_tool_arguments(ToolArgsFormat format, bool string_as_json, const std::string& arguments_json,
                           std::string* out, std::string* err);

/// The content of a tool message in `format`.
std::string format_tool_content(ToolContentFormat format, const std::string& content);

/// Python's json.dumps(value, ensure_ascii=False, indent=indent) of JSON text (indent < 0: one line); false + err
/// when the text does not parse.
bool python_json(const std::string& json_text, int indent, std::string* out, std::string* err);

}  // namespace saguaro
