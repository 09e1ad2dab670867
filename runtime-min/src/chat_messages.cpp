// OpenAI-style messages and tools: checked shapes, kept in their key order (nlohmann::ordered_json), so a tool or
// an arguments object is printed in the order the caller wrote it, as Python's json.loads keeps it.
#include "saguaro/chat_messages.h"

#include <nlohmann/json.hpp>

namespace saguaro {
namespace {

using Json = nlohmann::ordered_json;

bool parse_array(const std::string& text, const char* what, Json* out, std::string* err) {
  *out = Json::parse(text, nullptr, false);
  if (out->is_discarded()) return *err = std::string(what) + ": not valid JSON", false;
  if (!out->is_array()) return *err = std::string(what) + ": expected a JSON array", false;
  return true;
}

bool parse_call(const Json& call, const std::string& where, ToolCall* out, std::string* err) {
  if (!call.is_object()) return *err = where + ": expected an object", false;
  if (call.contains("type") && call["type"] != "function")
    return *err = where + ": \"type\" must be \"function\"", false;
  if (!call.contains("function") || !call["function"].is_object())
    return *err = where + ": needs a \"function\" object", false;
  const Json& f = call["function"];
  if (!f.contains("name") || !f["name"].is_string() || f["name"].get<std::string>().empty())
    return *err = where + ": \"function\" needs a non-empty string \"name\"", false;
  if (!f.contains("arguments") || !(f["arguments"].is_string() || f["arguments"].is_object()))
    return *err = where + ": \"function\" needs \"arguments\", a JSON string or an object", false;
  out->name = f["name"].get<std::string>();
  out->arguments = f["arguments"].dump();
  return true;
}

}  // namespace

bool parse_chat_messages(const std::string& json_text, std::vector<ChatMessage>* messages, std::string* err) {
  Json msgs;
  if (!parse_array(json_text, "messages", &msgs, err)) return false;
  std::vector<ChatMessage> out;
  for (size_t k = 0; k < msgs.size(); ++k) {
    const Json& m = msgs[k];
    const std::string where = "messages[" + std::to_string(k) + "]";
    if (!m.is_object() || !m.contains("role") || !m["role"].is_string())
      return *err = where + ": needs a string \"role\"", false;
    ChatMessage msg{m["role"].get<std::string>(), "", {}};
    const bool assistant = msg.role == "assistant";
    if (m.contains("tool_calls") && !m["tool_calls"].is_null()) {
      if (!assistant) return *err = where + ": only assistant messages carry \"tool_calls\"", false;
      if (!m["tool_calls"].is_array()) return *err = where + ": \"tool_calls\" must be an array", false;
      for (size_t c = 0; c < m["tool_calls"].size(); ++c) {
        msg.tool_calls.emplace_back();
        if (!parse_call(m["tool_calls"][c], where + ".tool_calls[" + std::to_string(c) + "]", &msg.tool_calls.back(), err))
          return false;
      }
    }
    const bool null_content = !m.contains("content") || m["content"].is_null();
    if (null_content && !(assistant && !msg.tool_calls.empty()))
      return *err = where + " (" + msg.role + "): needs a string \"content\"", false;
    if (!null_content && !m["content"].is_string())
      return *err = where + " (" + msg.role + "): \"content\" must be a string", false;
    if (!null_content) msg.content = m["content"].get<std::string>();
    out.push_back(std::move(msg));
  }
  *messages = std::move(out);
  return true;
}

bool parse_chat_tools(const std::string& json_text, std::vector<std::string>* tools, std::string* err) {
  Json list;
  if (!parse_array(json_text, "tools", &list, err)) return false;
  std::vector<std::string> out;
  for (size_t k = 0; k < list.size(); ++k) {
    const Json& t = list[k];
    const std::string where = "tools[" + std::to_string(k) + "]";
    if (!t.is_object() || !t.contains("type") || t["type"] != "function")
      return *err = where + ": expected {\"type\": \"function\", \"function\": {...}}", false;
    if (!t.contains("function") || !t["function"].is_object() || !t["function"].contains("name") ||
        !t["function"]["name"].is_string())
      return *err = where + ": \"function\" needs a string \"name\"", false;
    out.push_back(t.dump());
  }
  *tools = std::move(out);
  return true;
}

}  // namespace saguaro
