// Request builders and reply parsers for the three cloud APIs. Each provider's body follows its documented
// schema (OpenAI Chat Completions, Anthropic Messages, Gemini generateContent); fixtures in
// test/unit/handoff/fixtures pin them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "saguaro/handoff/message.h"

namespace saguaro::handoff {

enum class ProviderKind { OpenAI, Anthropic, Gemini };

std::optional<ProviderKind> provider_from_name(std::string_view name);  // "openai" | "anthropic" | "gemini"
const char* provider_name(ProviderKind provider);
const char* default_base_url(ProviderKind provider);

struct ChatRequest {
  std::string model;
  std::vector<Message> messages;  // already privacy-filtered
  long long max_tokens = 1024;
  nlohmann::json tools;        // OpenAI tools (null: none), sent in the provider's own form
  nlohmann::json tool_choice;  // OpenAI tool_choice with the tools (null: the provider's default, "auto")
};

struct ProviderRequest {
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;  // includes the key header when a key is given
  nlohmann::json body;
  std::vector<std::string> notes;  // parts the provider cannot take and that were left out, e.g. audio for Anthropic
};

// Throws HandoffError when the request cannot be expressed (bad base URL, model name with URL syntax in it).
ProviderRequest build_request(ProviderKind provider, const std::string& base_url, const std::string& api_key,
                              const ChatRequest& request);

// Just the body, for fixtures and dry runs.
nlohmann::json build_body(ProviderKind provider, const ChatRequest& request, std::vector<std::string>* notes);

struct ProviderReply {
  bool ok = false;
  std::string text;
  std::optional<long long> prompt_tokens;
  std::optional<long long> completion_tokens;
  std::string error;  // one line, redacted; set when !ok
  nlohmann::json tool_calls = nlohmann::json::array();  // the reply's calls in OpenAI's shape (then text may be "")
};

// Reads a provider's reply. A non-2xx status yields the provider's own error message when the body has one.
ProviderReply parse_reply(ProviderKind provider, long http_status, const std::string& body);

}  // namespace saguaro::handoff
