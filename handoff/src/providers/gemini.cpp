// Gemini generateContent (https://ai.google.dev/api/generate-content): roles user/model, text and inlineData
// parts, systemInstruction, generationConfig.maxOutputTokens. Field names in the REST JSON's camelCase form.
#include "providers/provider_internal.h"

namespace saguaro::handoff::detail {

using nlohmann::json;

json gemini_body(const ChatRequest& request, std::vector<std::string>*) {
  json system_parts = json::array();
  json contents = json::array();
  for (const Message& m : request.messages) {
    if (m.role == "system") {
      system_parts.push_back({{"text", m.content}});
      continue;
    }
    json parts = json::array();
    for (const Attachment& a : m.attachments) {
      parts.push_back({{"inlineData", {{"mimeType", a.mime_type}, {"data", a.base64_data}}}});
    }
    if (!m.content.empty() || parts.empty()) parts.push_back({{"text", m.content}});
    contents.push_back({{"role", m.role == "assistant" ? "model" : "user"}, {"parts", parts}});
  }
  json body = {{"contents", contents}, {"generationConfig", {{"maxOutputTokens", request.max_tokens}}}};
  if (!system_parts.empty()) body["systemInstruction"] = {{"parts", system_parts}};
  return body;
}

ProviderReply gemini_parse(long http_status, const json& body) {
  ProviderReply reply;
  if (http_status < 200 || http_status >= 300 || body.contains("error")) {
    reply.error = error_reply_message(http_status, body);
    return reply;
  }
  if (!body.contains("candidates") || !body["candidates"].is_array() || body["candidates"].empty()) {
    std::string why = "reply has no candidates";
    if (body.contains("promptFeedback") && body["promptFeedback"].is_object() &&
        body["promptFeedback"].contains("blockReason") && body["promptFeedback"]["blockReason"].is_string()) {
      why += " (prompt blocked: " + body["promptFeedback"]["blockReason"].get<std::string>() + ")";
    }
    reply.error = why;
    return reply;
  }
  const json& candidate = body["candidates"][0];
  bool any_text = false;
  if (candidate.is_object() && candidate.contains("content") && candidate["content"].is_object() &&
      candidate["content"].contains("parts") && candidate["content"]["parts"].is_array()) {
    for (const json& part : candidate["content"]["parts"]) {
      if (part.is_object() && part.contains("text") && part["text"].is_string()) {
        reply.text += part["text"].get<std::string>();
        any_text = true;
      }
    }
  }
  if (!any_text) {
    std::string why = "reply has no text in candidates[0].content.parts";
    if (candidate.is_object() && candidate.contains("finishReason") && candidate["finishReason"].is_string()) {
      why += " (finishReason " + candidate["finishReason"].get<std::string>() + ")";
    }
    reply.error = why;
    return reply;
  }
  reply.ok = true;
  if (body.contains("usageMetadata")) {
    reply.prompt_tokens = token_count(body["usageMetadata"], "promptTokenCount");
    reply.completion_tokens = token_count(body["usageMetadata"], "candidatesTokenCount");
  }
  return reply;
}

}  // namespace saguaro::handoff::detail
