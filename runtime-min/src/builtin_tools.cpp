// The table of built-in tools (saguaro/builtin_tools.h): declarations offered to the template, and dispatch.
#include "saguaro/builtin_tools.h"

#include <nlohmann/json.hpp>

#include "builtin_tool_kinds.h"

namespace saguaro {
namespace {

using Json = nlohmann::json;

struct BuiltinTool {
  const char* name;
  const char* declaration;  // OpenAI function declaration
  bool (*run)(const Json& args, std::string* out);
};

const BuiltinTool kTools[] = {
    {"math",
     R"JSON({"type": "function", "function": {"name": "math", "description": "Exact arithmetic on rationals: + - * / and parentheses over integers, decimals and fractions", "parameters": {"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]}}})JSON",
     run_math_tool},
    {"dates",
     R"JSON({"type": "function", "function": {"name": "dates", "description": "Date arithmetic on YYYY-MM-DD dates (Gregorian calendar)", "parameters": {"type": "object", "properties": {"operation": {"type": "string", "enum": ["add_days", "weekday", "days_between"]}, "date": {"type": "string"}, "days": {"type": "integer"}, "to": {"type": "string"}}, "required": ["operation", "date"]}}})JSON",
     run_dates_tool},
    {"units",
     R"JSON({"type": "function", "function": {"name": "units", "description": "Unit conversion of length, mass, time and temperature", "parameters": {"type": "object", "properties": {"value": {"type": "string"}, "from": {"type": "string"}, "to": {"type": "string"}}, "required": ["value", "from", "to"]}}})JSON",
     run_units_tool},
};

const BuiltinTool* find(const std::string& name) {
  for (const BuiltinTool& t : kTools)
    if (name == t.name) return &t;
  return nullptr;
}

}  // namespace

const std::vector<std::string>& builtin_tool_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const BuiltinTool& t : kTools) v.push_back(t.name);
    return v;
  }();
  return names;
}

std::string builtin_tool_declaration(const std::string& name) {
  const BuiltinTool* t = find(name);
  return t ? t->declaration : "";
}

bool run_builtin_tool(const std::string& name, const std::string& arguments_json, std::string* result) {
  const BuiltinTool* t = find(name);
  if (!t) return *result = name + ": not a built-in tool", false;
  const Json args = Json::parse(arguments_json, nullptr, false);
  std::string out;
  if (args.is_discarded() || !args.is_object()) out = "the arguments are not a JSON object";
  else if (t->run(args, &out)) return *result = out, true;
  *result = name + ": " + out;
  return false;
}

bool string_argument(const Json& args, const char* key, std::string* value, std::string* err) {
  const auto it = args.find(key);
  if (it == args.end() || !it->is_string()) return *err = std::string("\"") + key + "\" must be a string", false;
  *value = it->get<std::string>();
  return true;
}

}  // namespace saguaro
