// OpenAI tools and tool calls in the Anthropic and Gemini forms, and back (tool_formats.cpp). The tools and calls
// are OpenAI's JSON as the request carried them (chat_messages' shapes, checked by the local model first).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "saguaro/handoff/message.h"

namespace saguaro::handoff::detail {

/// One OpenAI tool call; `arguments` (an object) is sent as its JSON text.
nlohmann::json openai_call(const std::string& id, const std::string& name, const nlohmann::json& arguments);

/// Anthropic Messages "tools": [{"name", "description", "input_schema"}] (no parameters: an empty object schema).
nlohmann::json anthropic_tools(const nlohmann::json& tools);
/// An assistant's calls as Anthropic tool_use content blocks.
nlohmann::json anthropic_tool_use_blocks(const nlohmann::json& calls);

/// OpenAI's tool_choice as Anthropic's: {"type": "auto" | "any" | "none"} or {"type": "tool", "name"}.
nlohmann::json anthropic_tool_choice(const nlohmann::json& choice);
/// ... and as Gemini's toolConfig: {"functionCallingConfig": {"mode": "AUTO" | "ANY" | "NONE"[, "allowedFunctionNames"]}}.
nlohmann::json gemini_tool_config(const nlohmann::json& choice);

/// Gemini "tools": [{"functionDeclarations": [{"name", "description", "parameters"}]}].
nlohmann::json gemini_tools(const nlohmann::json& tools);
/// An assistant's calls as Gemini functionCall parts.
nlohmann::json gemini_call_parts(const nlohmann::json& calls);

/// The name of the function whose call has `id` in the conversation ("" when none): Gemini answers a call by name.
std::string call_name(const std::vector<Message>& messages, const std::string& id);

}  // namespace saguaro::handoff::detail
