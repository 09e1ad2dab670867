// What each provider file implements; provider.cpp dispatches to them.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "providers/tool_formats.h"
#include "saguaro/handoff/provider.h"

namespace saguaro::handoff::detail {

nlohmann::json openai_body(const ChatRequest& request, std::vector<std::string>* notes);
ProviderReply openai_parse(long http_status, const nlohmann::json& body);

nlohmann::json anthropic_body(const ChatRequest& request, std::vector<std::string>* notes);
ProviderReply anthropic_parse(long http_status, const nlohmann::json& body);

nlohmann::json gemini_body(const ChatRequest& request, std::vector<std::string>* notes);
ProviderReply gemini_parse(long http_status, const nlohmann::json& body);

// Token counts are optional in every API; a present but non-integer count is treated as absent.
std::optional<long long> token_count(const nlohmann::json& object, const char* key);

// "HTTP 401: <message>" or "HTTP 401" when the provider gave no message.
std::string http_error(long http_status, const std::string& provider_message);

// The error of a failed reply: http_error with the body's {"error": {"message"}} (the shape all three APIs use),
// or "provider returned an error object" when there is none.
std::string error_reply_message(long http_status, const nlohmann::json& body);

}  // namespace saguaro::handoff::detail
