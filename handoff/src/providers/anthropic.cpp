// Anthropic Messages (https://docs.anthropic.com/en/api/messages): system prompt at the top level, max_tokens
// required, content blocks with base64 image sources. The API takes no audio, so audio is left out with a note.
#include "providers/provider_internal.h"

namespace saguaro::handoff::detail {

using nlohmann::json;

json anthropic_body(const ChatRequest& request, std::vector<std::string>* notes) {
  std::string system;
  json messages = json::array();
  for (const Message& m : request.messages) {
    if (m.role == "system") {
      if (!system.empty()) system += "\n\n";
      system += m.content;
      continue;
    }
    if (m.role == "tool") {  // a tool's result is a user turn's tool_result block
      messages.push_back({{"role", "user"},
                          {"content", json::array({{{"type", "tool_result"}, {"tool_use_id", m.tool_call_id},
                                                    {"content", m.content}}})}});
      continue;
    }
    if (!m.tool_calls.is_null()) {
      json blocks = m.content.empty() ? json::array() : json::array({{{"type", "text"}, {"text", m.content}}});
      for (const json& b : anthropic_tool_use_blocks(m.tool_calls)) blocks.push_back(b);
      messages.push_back({{"role", "assistant"}, {"content", blocks}});
      continue;
    }
    if (m.attachments.empty()) {
      messages.push_back({{"role", m.role}, {"content", m.content}});
      continue;
    }
    json blocks = json::array();
    for (const Attachment& a : m.attachments) {
      const bool known_image = a.mime_type == "image/jpeg" || a.mime_type == "image/png" ||
                               a.mime_type == "image/gif" || a.mime_type == "image/webp";
      if (a.kind == AttachmentKind::Image && !known_image) {
        if (notes) notes->push_back("anthropic: image of type " + a.mime_type + " left out (jpeg, png, gif, webp only)");
      } else if (a.kind == AttachmentKind::Image) {
        blocks.push_back({{"type", "image"},
                          {"source", {{"type", "base64"}, {"media_type", a.mime_type}, {"data", a.base64_data}}}});
      } else if (notes) {
        notes->push_back("anthropic: audio left out (the Messages API takes no audio input)");
      }
    }
    if (!m.content.empty()) blocks.push_back({{"type", "text"}, {"text", m.content}});
    messages.push_back({{"role", m.role}, {"content", blocks}});
  }
  json body = {{"model", request.model}, {"max_tokens", request.max_tokens}, {"messages", messages}};
  if (!system.empty()) body["system"] = system;
  if (!request.tools.is_null()) body["tools"] = anthropic_tools(request.tools);
  if (!request.tool_choice.is_null()) body["tool_choice"] = anthropic_tool_choice(request.tool_choice);
  return body;
}

ProviderReply anthropic_parse(long http_status, const json& body) {
  ProviderReply reply;
  const bool error_object = body.contains("type") && body["type"] == "error";
  if (http_status < 200 || http_status >= 300 || error_object) {
    reply.error = error_reply_message(http_status, body);
    return reply;
  }
  if (!body.contains("content") || !body["content"].is_array()) {
    reply.error = "reply has no content array";
    return reply;
  }
  bool any_text = false;
  for (const json& block : body["content"]) {
    if (block.is_object() && block.contains("type") && block["type"] == "text" && block.contains("text") &&
        block["text"].is_string()) {
      reply.text += block["text"].get<std::string>();
      any_text = true;
    }
    if (block.is_object() && block.value("type", "") == "tool_use" && block.contains("name") &&
        block["name"].is_string()) {
      reply.tool_calls.push_back(openai_call(block.value("id", ""), block["name"], block.value("input", json::object())));
      any_text = true;  // a call is an answer
    }
  }
  if (!any_text) {
    reply.error = "reply has no text or tool_use content block";
    return reply;
  }
  reply.ok = true;
  if (body.contains("usage")) {
    reply.prompt_tokens = token_count(body["usage"], "input_tokens");
    reply.completion_tokens = token_count(body["usage"], "output_tokens");
  }
  return reply;
}

}  // namespace saguaro::handoff::detail
