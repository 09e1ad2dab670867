#include <algorithm>

#include "providers/provider_internal.h"
#include "saguaro/handoff/error.h"
#include "saguaro/handoff/redact.h"

namespace saguaro::handoff {
namespace {

std::string strip_trailing_slashes(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

// The model goes into the Gemini URL path; anything that would change the URL's meaning is refused.
std::string gemini_model_path(const std::string& model) {
  std::string name = model.compare(0, 7, "models/") == 0 ? model.substr(7) : model;
  const bool bad = name.empty() || std::any_of(name.begin(), name.end(), [](char c) {
    return c == '/' || c == '?' || c == '#' || c == '%' || c == ':' || c <= ' ' || c == 0x7f;
  });
  if (bad) throw HandoffError("cloud_model \"" + model + "\" is not a valid Gemini model name");
  return name;
}

}  // namespace

std::optional<ProviderKind> provider_from_name(std::string_view name) {
  if (name == "openai") return ProviderKind::OpenAI;
  if (name == "anthropic") return ProviderKind::Anthropic;
  if (name == "gemini") return ProviderKind::Gemini;
  return std::nullopt;
}

const char* provider_name(ProviderKind provider) {
  switch (provider) {
    case ProviderKind::OpenAI: return "openai";
    case ProviderKind::Anthropic: return "anthropic";
    case ProviderKind::Gemini: return "gemini";
  }
  return "unknown";
}

const char* default_base_url(ProviderKind provider) {
  switch (provider) {
    case ProviderKind::OpenAI: return "https://api.openai.com/v1";
    case ProviderKind::Anthropic: return "https://api.anthropic.com";
    case ProviderKind::Gemini: return "https://generativelanguage.googleapis.com";
  }
  return "";
}

nlohmann::json build_body(ProviderKind provider, const ChatRequest& request, std::vector<std::string>* notes) {
  switch (provider) {
    case ProviderKind::OpenAI: return detail::openai_body(request, notes);
    case ProviderKind::Anthropic: return detail::anthropic_body(request, notes);
    case ProviderKind::Gemini: return detail::gemini_body(request, notes);
  }
  return {};
}

ProviderRequest build_request(ProviderKind provider, const std::string& base_url, const std::string& api_key,
                              const ChatRequest& request) {
  if (request.model.empty()) throw HandoffError("cloud_model is not set");
  const std::string base = strip_trailing_slashes(base_url.empty() ? default_base_url(provider) : base_url);
  if (base.compare(0, 7, "http://") != 0 && base.compare(0, 8, "https://") != 0) {
    throw HandoffError("cloud_base_url must start with http:// or https://");
  }
  ProviderRequest out;
  out.body = build_body(provider, request, &out.notes);
  switch (provider) {
    case ProviderKind::OpenAI:
      out.url = base + "/chat/completions";
      if (!api_key.empty()) out.headers.emplace_back("Authorization", "Bearer " + api_key);
      break;
    case ProviderKind::Anthropic:
      out.url = base + "/v1/messages";
      if (!api_key.empty()) out.headers.emplace_back("x-api-key", api_key);
      out.headers.emplace_back("anthropic-version", "2023-06-01");
      break;
    case ProviderKind::Gemini:
      out.url = base + "/v1beta/models/" + gemini_model_path(request.model) + ":generateContent";
      if (!api_key.empty()) out.headers.emplace_back("x-goog-api-key", api_key);
      break;
  }
  return out;
}

ProviderReply parse_reply(ProviderKind provider, long http_status, const std::string& body) {
  nlohmann::json parsed = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  ProviderReply reply;
  if (parsed.is_discarded() || !parsed.is_object()) {
    reply.error = http_status >= 200 && http_status < 300
                      ? std::string("malformed JSON in the provider's reply")
                      : detail::http_error(http_status, "");
    return reply;
  }
  switch (provider) {
    case ProviderKind::OpenAI: reply = detail::openai_parse(http_status, parsed); break;
    case ProviderKind::Anthropic: reply = detail::anthropic_parse(http_status, parsed); break;
    case ProviderKind::Gemini: reply = detail::gemini_parse(http_status, parsed); break;
  }
  reply.error = redact(reply.error);
  reply.text = redact_known_secrets(reply.text);
  return reply;
}

namespace detail {

std::optional<long long> token_count(const nlohmann::json& object, const char* key) {
  if (!object.is_object() || !object.contains(key) || !object[key].is_number_integer()) return std::nullopt;
  const long long n = object[key].get<long long>();
  if (n < 0) return std::nullopt;
  return n;
}

std::string error_reply_message(long http_status, const nlohmann::json& body) {
  std::string message;
  if (body.contains("error") && body["error"].is_object() && body["error"].contains("message") &&
      body["error"]["message"].is_string()) {
    message = body["error"]["message"];
  }
  return http_error(http_status, message.empty() ? "provider returned an error object" : message);
}

std::string http_error(long http_status, const std::string& provider_message) {
  std::string line = "HTTP " + std::to_string(http_status);
  if (!provider_message.empty()) line += ": " + provider_message;
  // One line: provider messages sometimes carry newlines.
  std::replace(line.begin(), line.end(), '\n', ' ');
  std::replace(line.begin(), line.end(), '\r', ' ');
  if (line.size() > 300) line = line.substr(0, 297) + "...";
  return line;
}

}  // namespace detail
}  // namespace saguaro::handoff
