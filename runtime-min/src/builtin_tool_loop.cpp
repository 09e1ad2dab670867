// Built-in tool rounds (builtin_tool_loop.h).
#include "builtin_tool_loop.h"

#include <algorithm>

#include "saguaro/builtin_tools.h"

namespace saguaro {
namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

bool read_builtin_tools(const nlohmann::json& options, std::vector<std::string>* names, std::string* err) {
  names->clear();
  const auto it = options.find("builtin_tools");
  if (it == options.end() || it->is_null()) return true;
  std::string known;
  for (const std::string& n : builtin_tool_names()) known += (known.empty() ? "" : ", ") + n;
  if (!it->is_array()) return *err = "\"builtin_tools\" must be an array of names (" + known + ")", false;
  for (const nlohmann::json& n : *it) {
    if (!n.is_string() || !contains(builtin_tool_names(), n.get<std::string>()))
      return *err = "\"builtin_tools\": " + n.dump() + " is not a built-in tool (" + known + ")", false;
    if (contains(*names, n.get<std::string>())) return *err = "\"builtin_tools\": " + n.dump() + " is given twice", false;
    names->push_back(n.get<std::string>());
  }
  return true;
}

bool run_builtin_round(const std::vector<std::string>& enabled, const std::string& content,
                       const nlohmann::json& tool_fields, std::vector<ChatMessage>* messages, nlohmann::json* ran) {
  const auto calls = tool_fields.find("tool_calls");
  if (enabled.empty() || calls == tool_fields.end() || !calls->is_array() || calls->empty()) return false;
  for (const nlohmann::json& c : *calls)
    if (!contains(enabled, c["function"]["name"].get<std::string>())) return false;
  ChatMessage call{"assistant", content, {}, {}};
  std::vector<ChatMessage> results;
  for (const nlohmann::json& c : *calls) {
    const std::string name = c["function"]["name"], arguments = c["function"]["arguments"];
    std::string result;
    const bool ok = run_builtin_tool(name, arguments, &result);
    call.tool_calls.push_back({name, arguments});  // an object's JSON text: the template prints it as it prints objects
    results.push_back({"tool", result, {}, {}});
    ran->push_back({{"name", name}, {"arguments", arguments}, {ok ? "result" : "error", result}});
  }
  messages->push_back(std::move(call));
  messages->insert(messages->end(), results.begin(), results.end());
  return true;
}

}  // namespace saguaro
