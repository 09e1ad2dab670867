// Compiles a Hugging Face chat_template (Jinja) into the `chat.template` tensor: per-role prefix/suffix pieces that
// runtime-min applies without a template engine (format: runtime-min/src/chat_template.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace saguaro {

/// Variables the template is rendered with besides the messages.
struct ChatTemplateOptions {
  std::string bos_token, eos_token;     // "" leaves the variable undefined (as Hugging Face does for None)
  std::optional<bool> enable_thinking;  // unset: the template's own default (Qwen3 thinks)
  std::string date = "2024-07-26";      // YYYY-MM-DD that strftime_now() formats, so bundles are reproducible
};

/// Renders `template_text` at compile time and stores its pieces in `tensor_bytes`; false + err naming the
/// construct and line when the template is outside the supported subset or is not expressible as pieces. Tool
/// features (tool list, calls, tool messages, later system messages) the pieces cannot reproduce are left out of the
/// tensor, each with a line in *notes (when given) saying why.
bool compile_chat_template(const std::string& template_text, const ChatTemplateOptions& opts,
                           std::vector<uint8_t>* tensor_bytes, std::string* err,
                           std::vector<std::string>* notes = nullptr);

/// Reads the chat template of a tokenizer_config.json: its `chat_template` string, the template named "default"
/// when it is a list of {name, template}, else a chat_template.jinja beside it.
bool read_chat_template(const std::string& tokenizer_config_json_path, std::string* template_text, std::string* err);

/// Fills opts->bos_token / eos_token from a tokenizer_config.json (string, {"content": ...} or null).
bool read_chat_special_tokens(const std::string& tokenizer_config_json_path, ChatTemplateOptions* opts,
                              std::string* err);

}  // namespace saguaro
