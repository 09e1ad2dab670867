// Built-in tools (docs/builtin-tools.md): deterministic tools the local model may call, run in-process when the
// completion's options enable them ("builtin_tools": ["math", "dates", "units"]). Each takes its arguments as JSON
// text and answers with short text fed back to the model as a tool message; arguments it cannot use give a tool
// error (one line, fed back the same way), never a crash.
#pragma once

#include <string>
#include <vector>

namespace saguaro {

/// Every built-in tool's name, in the order they are offered.
const std::vector<std::string>& builtin_tool_names();

/// The OpenAI function declaration ({"type": "function", "function": {...}}, JSON text) of built-in tool `name`;
/// empty when there is no such tool.
std::string builtin_tool_declaration(const std::string& name);

/// Runs built-in tool `name` on `arguments_json` (JSON text of an object): true + the result, or false + a one-line
/// tool error ("math: division by zero").
bool run_builtin_tool(const std::string& name, const std::string& arguments_json, std::string* result);

}  // namespace saguaro
