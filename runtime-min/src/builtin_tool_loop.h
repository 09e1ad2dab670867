// The built-in tools' side of one completion (docs/builtin-tools.md): which built-in tools the options enable, and
// one round of the loop — a generated answer whose calls all name built-in tools has them run in-process, the call
// and its results appended to the conversation as an assistant message and tool messages, and the model generates
// again. An answer with any other call (or none) is final: it goes back to the caller as without built-in tools.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "saguaro/chat_template.h"

namespace saguaro {

/// Rounds of built-in calls one completion runs at most; the answer after the last is returned as it is.
constexpr int kMaxBuiltinToolRounds = 4;

/// The options' "builtin_tools" (an array of distinct built-in tool names; absent: none). False + "\"builtin_tools\":
/// ..." on anything else.
bool read_builtin_tools(const nlohmann::json& options, std::vector<std::string>* names, std::string* err);

/// One round: when the answer's OpenAI `tool_calls` (`tool_fields["tool_calls"]`, as ToolAnswer::finish writes
/// them) are not empty and all name tools of `enabled`, runs them, appends the assistant message (`content` and the
/// calls) and one tool message per call to *messages, adds {"name", "arguments", "result" | "error"} per call to
/// *ran, and returns true: generate again. False: the answer is final.
bool run_builtin_round(const std::vector<std::string>& enabled, const std::string& content,
                       const nlohmann::json& tool_fields, std::vector<ChatMessage>* messages, nlohmann::json* ran);

}  // namespace saguaro
