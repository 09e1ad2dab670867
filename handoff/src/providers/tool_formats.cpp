// OpenAI tools and tool calls in each provider's own form, and the providers' calls back in OpenAI's shape
// ([{"id", "type": "function", "function": {"name", "arguments": JSON text}}]): Anthropic's tools with
// input_schema, tool_use and tool_result blocks; Gemini's functionDeclarations, functionCall and functionResponse
// parts.
#include "providers/tool_formats.h"

namespace saguaro::handoff::detail {

using nlohmann::json;

namespace {

// A call's arguments as an object (OpenAI sends a JSON string; a text that is no object becomes {}).
json arguments_object(const json& call) {
  const json& args = call["function"]["arguments"];
  const json parsed = args.is_string() ? json::parse(args.get<std::string>(), nullptr, false) : args;
  return parsed.is_object() ? parsed : json::object();
}

json parameters_of(const json& function) {
  return function.contains("parameters") ? function["parameters"] : json{{"type", "object"}, {"properties", json::object()}};
}

// Each tool's function as {"name", "description", schema_key: its parameters}: both APIs' declaration shape.
json declarations(const json& tools, const char* schema_key) {
  json out = json::array();
  for (const json& t : tools) {
    const json& f = t["function"];
    json d = {{"name", f["name"]}, {schema_key, parameters_of(f)}};
    if (f.contains("description")) d["description"] = f["description"];
    out.push_back(d);
  }
  return out;
}

}  // namespace

json openai_call(const std::string& id, const std::string& name, const json& arguments) {
  return {{"id", id}, {"type", "function"}, {"function", {{"name", name}, {"arguments", arguments.dump()}}}};
}

json anthropic_tools(const json& tools) { return declarations(tools, "input_schema"); }

namespace {
// The mode of an OpenAI tool_choice ("auto", "none", "required"; "named" for {"function": {"name"}}).
std::string choice_mode(const json& choice) { return choice.is_string() ? choice.get<std::string>() : "named"; }
std::string choice_name(const json& choice) {
  return choice.is_object() && choice.contains("function") ? choice["function"].value("name", "") : "";
}
}  // namespace

json anthropic_tool_choice(const json& choice) {
  const std::string mode = choice_mode(choice);
  if (mode == "named") return {{"type", "tool"}, {"name", choice_name(choice)}};
  return {{"type", mode == "required" ? "any" : mode}};
}

json gemini_tool_config(const json& choice) {
  const std::string mode = choice_mode(choice);
  json config = {{"mode", mode == "none" ? "NONE" : mode == "auto" ? "AUTO" : "ANY"}};
  if (mode == "named") config["allowedFunctionNames"] = json::array({choice_name(choice)});
  return {{"functionCallingConfig", config}};
}

json anthropic_tool_use_blocks(const json& calls) {
  json blocks = json::array();
  for (const json& c : calls)
    blocks.push_back({{"type", "tool_use"}, {"id", c["id"]}, {"name", c["function"]["name"]}, {"input", arguments_object(c)}});
  return blocks;
}

json gemini_tools(const json& tools) {
  return json::array({{{"functionDeclarations", declarations(tools, "parameters")}}});
}

json gemini_call_parts(const json& calls) {
  json parts = json::array();
  for (const json& c : calls)
    parts.push_back({{"functionCall", {{"name", c["function"]["name"]}, {"args", arguments_object(c)}}}});
  return parts;
}

std::string call_name(const std::vector<Message>& messages, const std::string& id) {
  for (const Message& m : messages)
    if (m.tool_calls.is_array())
      for (const json& c : m.tool_calls)
        if (c.value("id", "") == id) return c["function"].value("name", "");
  return "";
}

}  // namespace saguaro::handoff::detail
