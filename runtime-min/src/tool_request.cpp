// The options' tools and tool_choice (saguaro/tool_request.h). The options are read again with their key order kept
// (nlohmann::ordered_json), so each tool prints in the order the caller wrote it, as the model's template would.
#include "saguaro/tool_request.h"

#include <atomic>
#include <chrono>
#include <cstdio>

#include "saguaro/chat_messages.h"

namespace saguaro {
namespace {

using Json = nlohmann::ordered_json;

bool read_choice(const Json& c, ToolRequest* out, std::string* err) {
  if (c.is_string()) {
    const std::string s = c.get<std::string>();
    if (s == "auto") return out->choice = ToolRequest::kAuto, true;
    if (s == "none") return out->choice = ToolRequest::kNone, true;
    if (s == "required") return out->choice = ToolRequest::kRequired, true;
  } else if (c.is_object() && c.contains("type") && c["type"] == "function" && c.contains("function") &&
             c["function"].is_object() && c["function"].contains("name") && c["function"]["name"].is_string()) {
    out->choice = ToolRequest::kNamed;
    out->named = c["function"]["name"].get<std::string>();
    for (const std::string& n : out->names)
      if (n == out->named) return true;
    return *err = "\"tool_choice\": names \"" + out->named + "\", which is not among the tools", false;
  }
  return *err = "\"tool_choice\": expected \"auto\", \"none\", \"required\" or {\"type\": \"function\", \"function\": "
                "{\"name\": ...}}",
         false;
}

// A call id unique in this process and unlikely to repeat across processes (the clock's nanoseconds).
std::string new_call_id() {
  static std::atomic<unsigned long long> counter{0};
  const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  char id[40];
  std::snprintf(id, sizeof id, "call_%012llx%04llx", static_cast<unsigned long long>(now) & 0xffffffffffffULL,
                counter++ & 0xffffULL);
  return id;
}

std::string list(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

bool read_tool_request(const std::string& options_json, ToolRequest* out, std::string* err) {
  *out = ToolRequest();
  const Json o = Json::parse(options_json, nullptr, false);
  if (o.is_discarded() || !o.is_object()) return true;  // the caller reports the options themselves
  if (o.contains("tools") && !o["tools"].is_null()) {
    if (!parse_chat_tools(o["tools"].dump(), &out->tools, err)) return *err = "\"tools\": " + *err, false;
    for (size_t k = 0; k < out->tools.size(); ++k) {
      const std::string name = Json::parse(out->tools[k])["function"]["name"].get<std::string>();
      for (const std::string& n : out->names)
        if (n == name) return *err = "\"tools\": tools[" + std::to_string(k) + "] repeats the name \"" + name + "\"", false;
      out->names.push_back(name);
    }
  }
  if (o.contains("tool_choice") && !o["tool_choice"].is_null()) {
    if (out->tools.empty()) return *err = "\"tool_choice\": given without \"tools\"", false;
    if (!read_choice(o["tool_choice"], out, err)) return false;
  }
  return true;
}

bool tool_calls_json(const std::vector<ParsedToolCall>& calls, const ToolRequest& request, nlohmann::json* out,
                     std::string* err) {
  *out = nlohmann::json::array();
  for (size_t k = 0; k < calls.size(); ++k) {
    const std::string& name = calls[k].name;
    bool known = false;
    for (const std::string& n : request.names) known = known || n == name;
    if (!known)
      return *err = "tool call " + std::to_string(k) + " names \"" + name + "\", which is not among the tools (" +
                    list(request.names) + ")",
             false;
    if (request.choice == ToolRequest::kNamed && name != request.named)
      return *err = "tool call " + std::to_string(k) + " names \"" + name + "\", but tool_choice asked for \"" +
                    request.named + "\"",
             false;
    out->push_back({{"id", new_call_id()},
                    {"type", "function"},
                    {"function", {{"name", name}, {"arguments", calls[k].arguments}}}});
  }
  return true;
}

}  // namespace saguaro
