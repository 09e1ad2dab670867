// The variables a chat template is rendered with, as Hugging Face's apply_chat_template passes them.
#pragma once

#include <vector>

#include "ChatCompiler.h"
#include "JinjaValue.h"
#include "saguaro/chat_template.h"

namespace saguaro::chat {

/// messages (with OpenAI `tool_calls` where a message has calls), add_generation_prompt, bos_token/eos_token (when
/// set), tools (the parsed tool list, none when empty), documents (none), enable_thinking (when set) and strftime_now
/// (formatting opts.date); throws TemplateError on a bad opts.date or tool JSON.
Dict chat_variables(const std::vector<ChatMessage>& messages, const std::vector<std::string>& tools,
                    bool add_generation_prompt, const ChatTemplateOptions& opts);

}  // namespace saguaro::chat
