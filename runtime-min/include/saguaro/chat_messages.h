// OpenAI-style messages and tool lists from JSON text, into what ChatTemplate::apply takes.
#pragma once

#include <string>
#include <vector>

#include "saguaro/chat_template.h"

namespace saguaro {

/// An array of {"role", "content"} messages; assistant messages may carry `tool_calls`
/// ([{"type": "function", "function": {"name", "arguments"}}], arguments a JSON string or an object) and a null
/// content (read as ""). False + "problem" naming the message on anything else.
bool parse_chat_messages(const std::string& json_text, std::vector<ChatMessage>* messages, std::string* err);

/// An array of OpenAI tools ({"type": "function", "function": {"name", ...}}), each kept as its JSON text with its
/// keys in their order. False + "problem" naming the tool on anything else.
bool parse_chat_tools(const std::string& json_text, std::vector<std::string>* tools, std::string* err);

}  // namespace saguaro
