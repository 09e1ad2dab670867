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
    if (m.role == "tool") {  // Gemini answers a call by its function's name
      const json response = {{"name", call_name(request.messages, m.tool_call_id)}, {"response", {{"content", m.content}}}};
      contents.push_back({{"role", "user"}, {"parts", json::array({{{"functionResponse", response}}})}});
      continue;
    }
    json parts = json::array();
    if (!m.tool_calls.is_null()) {
      if (!m.content.empty()) parts.push_back({{"text", m.content}});
      for (const json& p : gemini_call_parts(m.tool_calls)) parts.push_back(p);
      contents.push_back({{"role", "model"}, {"parts", parts}});
      continue;
    }
    for (const Attachment& a : m.attachments) {
      parts.push_back({{"inlineData", {{"mimeType", a.mime_type}, {"data", a.base64_data}}}});
    }
    if (!m.content.empty() || parts.empty()) parts.push_back({{"text", m.content}});
    contents.push_back({{"role", m.role == "assistant" ? "model" : "user"}, {"parts", parts}});
  }
  json body = {{"contents", contents}, {"generationConfig", {{"maxOutputTokens", request.max_tokens}}}};
  if (!system_parts.empty()) body["systemInstruction"] = {{"parts", system_parts}};
  if (!request.tools.is_null()) body["tools"] = gemini_tools(request.tools);
  if (!request.tool_choice.is_null()) body["toolConfig"] = gemini_tool_config(request.tool_choice);
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
      if (part.is_object() && part.contains("functionCall") && part["functionCall"].is_object() &&
          part["functionCall"].contains("name") && part["functionCall"]["name"].is_string()) {
        // Gemini's calls carry no id; the position names them.
        const json& call = part["functionCall"];
        reply.tool_calls.push_back(openai_call("call_gemini_" + std::to_string(reply.tool_calls.size()), call["name"],
                                               call.value("args", json::object())));
        any_text = true;  // a call is an answer
      }
    }
  }
  if (!any_text) {
    std::string why = "reply has no text or functionCall in candidates[0].content.parts";
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
