// OpenAI Chat Completions (https://platform.openai.com/docs/api-reference/chat/create), which is also what
// OpenAI-compatible servers (vLLM, llama.cpp, `saguaro serve`) accept. max_tokens rather than
// max_completion_tokens, because compatible servers only know the former.
#include "providers/provider_internal.h"

namespace saguaro::handoff::detail {

using nlohmann::json;

namespace {

json content_of(const Message& m, std::vector<std::string>* notes) {
  if (m.attachments.empty()) return m.content;
  json parts = json::array();
  if (!m.content.empty()) parts.push_back({{"type", "text"}, {"text", m.content}});
  for (const Attachment& a : m.attachments) {
    if (a.kind == AttachmentKind::Image) {
      parts.push_back({{"type", "image_url"},
                       {"image_url", {{"url", "data:" + a.mime_type + ";base64," + a.base64_data}}}});
    } else if (a.mime_type == "audio/wav" || a.mime_type == "audio/mpeg") {
      parts.push_back({{"type", "input_audio"},
                       {"input_audio", {{"data", a.base64_data}, {"format", a.mime_type == "audio/wav" ? "wav" : "mp3"}}}});
    } else if (notes) {
      notes->push_back("openai: audio of type " + a.mime_type + " left out (only wav and mp3 are accepted)");
    }
  }
  return parts;
}

}  // namespace

json openai_body(const ChatRequest& request, std::vector<std::string>* notes) {
  json messages = json::array();
  for (const Message& m : request.messages) {
    json message = {{"role", m.role}, {"content", content_of(m, notes)}};
    if (!m.tool_calls.is_null()) message["tool_calls"] = m.tool_calls;
    if (m.role == "tool") message["tool_call_id"] = m.tool_call_id;
    messages.push_back(message);
  }
  json body = {{"model", request.model}, {"messages", messages}, {"max_tokens", request.max_tokens}};
  if (!request.tools.is_null()) body["tools"] = request.tools;
  if (!request.tool_choice.is_null()) body["tool_choice"] = request.tool_choice;
  return body;
}

ProviderReply openai_parse(long http_status, const json& body) {
  ProviderReply reply;
  if (http_status < 200 || http_status >= 300 || body.contains("error")) {
    reply.error = error_reply_message(http_status, body);
    return reply;
  }
  if (!body.contains("choices") || !body["choices"].is_array() || body["choices"].empty()) {
    reply.error = "reply has no choices";
    return reply;
  }
  const json& choice = body["choices"][0];
  const bool calls = choice.is_object() && choice.contains("message") && choice["message"].is_object() &&
                     choice["message"].contains("tool_calls") && choice["message"]["tool_calls"].is_array();
  if (!choice.is_object() || !choice.contains("message") || !choice["message"].is_object() ||
      !((choice["message"].contains("content") && choice["message"]["content"].is_string()) || calls)) {
    reply.error = "reply has no choices[0].message.content text";
    return reply;
  }
  reply.ok = true;
  reply.text = choice["message"].value("content", json("")).is_string() ? choice["message"].value("content", "") : "";
  if (calls) {
    for (const json& c : choice["message"]["tool_calls"]) {
      if (!c.is_object() || !c.contains("function") || !c["function"].is_object() ||
          !c["function"].contains("name") || !c["function"]["name"].is_string()) {
        reply.ok = false;
        reply.error = "reply has a tool call without a function name";
        return reply;
      }
      const json& args = c["function"].value("arguments", json("{}"));
      reply.tool_calls.push_back({{"id", c.value("id", "")}, {"type", "function"},
                                  {"function", {{"name", c["function"]["name"]},
                                                {"arguments", args.is_string() ? args.get<std::string>() : args.dump()}}}});
    }
  }
  if (body.contains("usage")) {
    reply.prompt_tokens = token_count(body["usage"], "prompt_tokens");
    reply.completion_tokens = token_count(body["usage"], "completion_tokens");
  }
  return reply;
}

}  // namespace saguaro::handoff::detail
