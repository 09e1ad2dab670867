// Template variables for a conversation, including a strftime_now() that formats the fixed date of the options.
#include "ChatVariables.h"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace saguaro::chat {
namespace {

struct Date {
  int year, month, day;
};

Date parse_date(const std::string& s) {
  Date d{};
  char extra;
  if (std::sscanf(s.c_str(), "%4d-%2d-%2d%c", &d.year, &d.month, &d.day, &extra) != 3 || s.size() != 10 ||
      d.month < 1 || d.month > 12 || d.day < 1 || d.day > 31)
    throw TemplateError("chat template date '" + s + "': expected YYYY-MM-DD");
  return d;
}

// 0 = Sunday (Sakamoto's method).
int weekday(const Date& d) {
  static const int t[] = {0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4};
  const int y = d.year - (d.month < 3);
  return (y + y / 4 - y / 100 + y / 400 + t[d.month - 1] + d.day) % 7;
}

int day_of_year(const Date& d) {
  static const int before[] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
  const bool leap = (d.year % 4 == 0 && d.year % 100 != 0) || d.year % 400 == 0;
  return before[d.month - 1] + d.day + (leap && d.month > 2);
}

// Python's datetime.strftime for midnight of `d` in the C locale (the directives chat templates use).
std::string format_date(const Date& d, const std::string& fmt) {
  static const char* const months[] = {"January", "February", "March",     "April",   "May",      "June",
                                       "July",    "August",   "September", "October", "November", "December"};
  static const char* const days[] = {"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"};
  std::string out;
  char buf[16];
  for (size_t k = 0; k < fmt.size(); ++k) {
    if (fmt[k] != '%' || k + 1 == fmt.size()) {
      out += fmt[k];
      continue;
    }
    char c = fmt[++k];
    const bool no_pad = c == '-' && k + 1 < fmt.size();  // glibc's "%-d"
    if (no_pad) c = fmt[++k];
    const char* num = no_pad ? "%d" : "%02d";
    switch (c) {
      case 'd': std::snprintf(buf, sizeof buf, num, d.day); out += buf; break;
      case 'e': std::snprintf(buf, sizeof buf, "%2d", d.day); out += buf; break;
      case 'm': std::snprintf(buf, sizeof buf, num, d.month); out += buf; break;
      case 'Y': out += std::to_string(d.year); break;
      case 'y': std::snprintf(buf, sizeof buf, "%02d", d.year % 100); out += buf; break;
      case 'B': out += months[d.month - 1]; break;
      case 'b': out += std::string(months[d.month - 1]).substr(0, 3); break;
      case 'A': out += days[weekday(d)]; break;
      case 'a': out += std::string(days[weekday(d)]).substr(0, 3); break;
      case 'j': std::snprintf(buf, sizeof buf, no_pad ? "%d" : "%03d", day_of_year(d)); out += buf; break;
      case 'H':
      case 'M':
      case 'S': out += no_pad ? "0" : "00"; break;
      case '%': out += '%'; break;
      default: throw EvalError(std::string("strftime_now: unsupported directive '%") + c + "'");
    }
  }
  return out;
}

// A JSON value as the template sees it after Python's json.loads.
Value json_value(const nlohmann::ordered_json& j) {
  if (j.is_null()) return Value::none();
  if (j.is_boolean()) return Value::boolean(j.get<bool>());
  if (j.is_number_integer()) return Value::integer(j.get<int64_t>());
  if (j.is_number()) return Value::number(j.get<double>());
  if (j.is_string()) return Value::string(j.get<std::string>());
  if (j.is_array()) {
    List items;
    for (const auto& e : j) items.push_back(json_value(e));
    return Value::list_of(items);
  }
  Dict d;
  for (auto it = j.begin(); it != j.end(); ++it) d.set(it.key(), json_value(it.value()));
  return Value::dict_of(d);
}

Value parsed(const std::string& text) {
  const auto j = nlohmann::ordered_json::parse(text, nullptr, false);
  if (j.is_discarded()) throw TemplateError("not valid JSON: " + text);
  return json_value(j);
}

// An assistant message's calls in OpenAI's shape: {"type": "function", "function": {"name", "arguments"}}.
Value tool_calls(const std::vector<ToolCall>& calls) {
  List out;
  for (const ToolCall& c : calls) {
    Dict function, call;
    function.set("name", Value::string(c.name));
    function.set("arguments", parsed(c.arguments));
    call.set("type", Value::string("function"));
    call.set("function", Value::dict_of(function));
    out.push_back(Value::dict_of(call));
  }
  return Value::list_of(out);
}

}  // namespace

Dict chat_variables(const std::vector<ChatMessage>& messages, const std::vector<std::string>& tools,
                    bool add_generation_prompt, const ChatTemplateOptions& opts) {
  const Date date = parse_date(opts.date);
  List msgs;
  for (const ChatMessage& m : messages) {
    Dict d;
    d.set("role", Value::string(m.role));
    if (m.parts.empty()) {
      d.set("content", Value::string(m.content));
    } else {  // OpenAI content parts, as transformers passes them to templates: {"type": "image"} for an image
      List parts;
      for (const ContentPart& p : m.parts) {
        Dict part;
        part.set("type", Value::string(p.kind == ContentPart::kText    ? "text"
                                       : p.kind == ContentPart::kImage ? "image"
                                                                       : "audio"));
        if (p.kind == ContentPart::kText) part.set("text", Value::string(p.text));
        parts.push_back(Value::dict_of(part));
      }
      d.set("content", Value::list_of(parts));
    }
    if (!m.tool_calls.empty()) d.set("tool_calls", tool_calls(m.tool_calls));
    msgs.push_back(Value::dict_of(d));
  }
  List tool_list;
  for (const std::string& t : tools) tool_list.push_back(parsed(t));
  Dict vars;
  vars.set("messages", Value::list_of(msgs));
  vars.set("add_generation_prompt", Value::boolean(add_generation_prompt));
  vars.set("tools", tools.empty() ? Value::none() : Value::list_of(tool_list));
  vars.set("documents", Value::none());
  if (!opts.bos_token.empty()) vars.set("bos_token", Value::string(opts.bos_token));
  if (!opts.eos_token.empty()) vars.set("eos_token", Value::string(opts.eos_token));
  if (opts.enable_thinking) vars.set("enable_thinking", Value::boolean(*opts.enable_thinking));
  vars.set("strftime_now", Value::function([date](const List& args, const KwArgs&) {
             if (args.size() != 1 || !args[0].is_string()) throw EvalError("strftime_now() takes one format string");
             return Value::string(format_date(date, args[0].s));
           }));
  return vars;
}

}  // namespace saguaro::chat
