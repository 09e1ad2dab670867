// A completion request's tools: the options' OpenAI `tools` and `tool_choice`, and the calls of the answer checked
// against them and written in OpenAI's `tool_calls` shape. Used by the C API (capi.cpp).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "saguaro/tool_calls.h"

namespace saguaro {

struct ToolRequest {
  enum Choice { kAuto, kNone, kRequired, kNamed };
  std::vector<std::string> tools;  // each tool's JSON text, keys in the caller's order; empty: no tools
  std::vector<std::string> names;  // their function names, in order
  Choice choice = kAuto;
  std::string named;               // kNamed: the function the answer must call

  /// Whether the answer is read for calls: tools were given and tool_choice is not "none".
  bool active() const { return !tools.empty() && choice != kNone; }
};

/// Reads "tools" (an array of {"type": "function", "function": {"name", ...}}) and "tool_choice" ("auto", "none",
/// "required" or {"type": "function", "function": {"name"}}) from the options' JSON text. False + one line
/// ("\"tools\": ...", "\"tool_choice\": ...") on anything else, a repeated name, or a choice without tools.
bool read_tool_request(const std::string& options_json, ToolRequest* out, std::string* err);

/// The answer's calls as OpenAI `tool_calls` ([{"id", "type": "function", "function": {"name", "arguments"}}],
/// arguments a JSON string). False + "tool call K names \"f\", which is not among the tools (...)" for a function
/// the request did not offer, or one other than tool_choice's.
bool tool_calls_json(const std::vector<ParsedToolCall>& calls, const ToolRequest& request, nlohmann::json* out,
                     std::string* err);

}  // namespace saguaro
