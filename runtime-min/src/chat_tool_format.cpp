// Tool data in the forms chat templates print it. The JSON forms are Python's json.dumps as transformers' `tojson`
// calls it (ensure_ascii=False, insertion order, repr() floats); the Gemma 4 forms follow the macros of Gemma 4's
// published template (format_function_declaration, format_parameters, format_argument), whitespace control included.
#include "saguaro/chat_tool_format.h"

#include "saguaro/chat_template.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

namespace saguaro {
namespace {

using Json = nlohmann::ordered_json;
const char* const kQuote = "<|\"|>";  // Gemma 4's string delimiter token

struct FormatError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Python's repr() of a float: the shortest digits that read back, fixed notation for exponents in [-4, 16).
std::string python_float(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  char buf[40];
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*e", prec - 1, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::string s = buf, sign;
  if (s[0] == '-') sign = "-", s.erase(0, 1);
  const size_t e = s.find('e');
  const int exp = std::atoi(s.c_str() + e + 1);
  std::string digits = s.substr(0, 1) + (e > 2 ? s.substr(2, e - 2) : "");
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  if (exp >= 16 || exp < -4) {
    std::snprintf(buf, sizeof buf, "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
    return sign + digits.substr(0, 1) + (digits.size() > 1 ? "." + digits.substr(1) : "") + buf;
  }
  if (exp < 0) return sign + "0." + std::string(size_t(-exp - 1), '0') + digits;
  if (digits.size() <= size_t(exp) + 1) digits += std::string(size_t(exp) + 1 - digits.size(), '0');
  const std::string frac = digits.substr(size_t(exp) + 1);
  return sign + digits.substr(0, size_t(exp) + 1) + "." + (frac.empty() ? "0" : frac);
}

void json_string(const std::string& s, std::string* out) {
  *out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"': *out += "\\\""; break;
      case '\\': *out += "\\\\"; break;
      case '\n': *out += "\\n"; break;
      case '\r': *out += "\\r"; break;
      case '\t': *out += "\\t"; break;
      case '\b': *out += "\\b"; break;
      case '\f': *out += "\\f"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          *out += buf;
        } else {
          *out += char(c);
        }
    }
  }
  *out += '"';
}

void dump(const Json& v, int indent, int level, std::string* out) {
  const std::string nl = indent < 0 ? "" : "\n" + std::string(size_t(indent) * (level + 1), ' ');
  const std::string close = indent < 0 ? "" : "\n" + std::string(size_t(indent) * level, ' ');
  const char* sep = indent < 0 ? ", " : ",";
  if (v.is_object()) {
    if (v.empty()) return void(*out += "{}");
    *out += "{";
    bool first = true;
    for (auto it = v.begin(); it != v.end(); ++it, first = false) {
      *out += (first ? "" : sep) + nl;
      json_string(it.key(), out);
      *out += ": ";
      dump(it.value(), indent, level + 1, out);
    }
    *out += close + "}";
  } else if (v.is_array()) {
    if (v.empty()) return void(*out += "[]");
    *out += "[";
    for (size_t k = 0; k < v.size(); ++k) {
      *out += (k ? sep : "") + nl;
      dump(v[k], indent, level + 1, out);
    }
    *out += close + "]";
  } else if (v.is_string()) {
    json_string(v.get_ref<const std::string&>(), out);
  } else if (v.is_number_float()) {
    *out += python_float(v.get<double>());
  } else {
    *out += v.dump();  // null, true, false, integers: the same text in Python
  }
}

std::string python_json_of(const Json& v, int indent) {
  std::string out;
  dump(v, indent, 0, &out);
  return out;
}

Json parse(const std::string& text, const char* what) {
  Json v = Json::parse(text, nullptr, false);
  if (v.is_discarded()) throw FormatError(std::string(what) + " is not valid JSON");
  return v;
}

// Python truthiness of a JSON value (a missing key counts as false, as Jinja's undefined does).
bool truthy(const Json* v) {
  if (!v || v->is_null()) return false;
  if (v->is_boolean()) return v->get<bool>();
  if (v->is_number()) return v->get<double>() != 0;
  if (v->is_string() || v->is_array() || v->is_object()) return !v->empty();
  return true;
}

const Json* member(const Json& v, const char* key) {
  if (!v.is_object()) return nullptr;
  auto it = v.find(key);
  return it == v.end() ? nullptr : &*it;
}

// Python str() of a scalar, what `{{ v }}` prints (a missing value prints nothing).
std::string python_str(const Json* v) {
  if (!v) return "";
  if (v->is_string()) return v->get<std::string>();
  if (v->is_null()) return "None";
  if (v->is_boolean()) return v->get<bool>() ? "True" : "False";
  if (v->is_number_float()) return python_float(v->get<double>());
  if (v->is_number()) return v->dump();
  throw FormatError("a list or object where the template prints text");
}

std::string upper(std::string s) {
  for (char& c : s)
    if (c >= 'a' && c <= 'z') c = char(c - 'a' + 'A');
  return s;
}

// Jinja's dictsort: items by key, case-insensitively, equal keys in insertion order.
std::vector<std::pair<std::string, const Json*>> dictsort(const Json& obj) {
  std::vector<std::pair<std::string, const Json*>> items;
  for (auto it = obj.begin(); it != obj.end(); ++it) items.emplace_back(it.key(), &it.value());
  auto lower = [](std::string s) {
    for (char& c : s)
      if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
    return s;
  };
  std::stable_sort(items.begin(), items.end(), [&](const auto& a, const auto& b) { return lower(a.first) < lower(b.first); });
  return items;
}

// Gemma 4's format_argument(argument, escape_keys).
std::string gemma_argument(const Json& v, bool escape_keys) {
  if (v.is_string()) return kQuote + v.get<std::string>() + kQuote;
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  std::string out;
  if (v.is_object()) {
    out = "{";
    bool first = true;
    for (const auto& [key, value] : dictsort(v)) {
      out += (first ? "" : ",") + (escape_keys ? kQuote + key + kQuote : key) + ":" + gemma_argument(*value, escape_keys);
      first = false;
    }
    return out + "}";
  }
  if (v.is_array()) {
    out = "[";
    for (size_t k = 0; k < v.size(); ++k) out += (k ? "," : "") + gemma_argument(v[k], escape_keys);
    return out + "]";
  }
  return python_str(&v);
}

std::string quoted_list(const Json* items) {
  std::string out;
  if (!items) return out;
  if (!items->is_array()) throw FormatError("\"required\" must be a list");
  for (size_t k = 0; k < items->size(); ++k) out += std::string(k ? "," : "") + kQuote + python_str(&(*items)[k]) + kQuote;
  return out;
}

// Gemma 4's format_parameters(properties, required): every property but the schema's own keywords.
std::string gemma_parameters(const Json& properties) {
  static const char* const kStandard[] = {"description", "type", "properties", "required", "nullable"};
  std::string out;
  bool found_first = false;
  for (const auto& [key, value_ptr] : dictsort(properties)) {
    if (std::find(std::begin(kStandard), std::end(kStandard), key) != std::end(kStandard)) continue;
    const Json& value = *value_ptr;
    if (!value.is_object()) throw FormatError("parameter \"" + key + "\" is not an object");
    out += std::string(found_first ? "," : "") + key + ":{";
    found_first = true;
    bool add_comma = false;
    auto comma = [&] {
      if (add_comma) out += ",";
      add_comma = true;
    };
    if (truthy(member(value, "description"))) {
      out += "description:" + std::string(kQuote) + python_str(member(value, "description")) + kQuote;
      add_comma = true;
    }
    if (truthy(member(value, "nullable"))) comma(), out += "nullable:true";
    const Json* type = member(value, "type");
    if (!type || !(type->is_string() || (type->is_array() && !type->empty() && (*type)[0].is_string())))
      throw FormatError("parameter \"" + key + "\" has no type");
    const std::string value_type = upper(type->is_string() ? type->get<std::string>() : (*type)[0].get<std::string>());
    if (value_type == "STRING") {
      if (truthy(member(value, "enum"))) comma(), out += "enum:" + gemma_argument(*member(value, "enum"), true);
    } else if (value_type == "OBJECT") {
      const Json* props = member(value, "properties");
      out += ",properties:{" + gemma_parameters(props && props->is_object() ? *props : value) + "}";
      if (truthy(member(value, "required"))) out += ",required:[" + quoted_list(member(value, "required")) + "]";
    } else if (value_type == "ARRAY") {
      const Json* items = member(value, "items");
      if (items && items->is_object() && !items->empty()) {
        out += ",items:{";
        bool first_item = true;
        for (const auto& [item_key, item_value] : dictsort(*items)) {
          if (item_value->is_null()) continue;
          out += first_item ? "" : ",";
          first_item = false;
          if (item_key == "properties") {
            out += "properties:{" + (item_value->is_object() ? gemma_parameters(*item_value) : "") + "}";
          } else if (item_key == "required") {
            out += "required:[" + quoted_list(item_value) + "]";
          } else if (item_key == "type") {
            Json upper_type = *item_value;
            if (upper_type.is_string()) upper_type = upper(upper_type.get<std::string>());
            else if (upper_type.is_array())
              for (Json& t : upper_type) t = upper(python_str(&t));
            out += "type:" + gemma_argument(upper_type, true);
          } else {
            out += item_key + ":" + gemma_argument(*item_value, true);
          }
        }
        out += "}";
      }
    }
    comma();
    out += "type:" + std::string(kQuote) + value_type + kQuote + "}";
  }
  return out;
}

// Gemma 4's format_function_declaration(tool) | trim.
std::string gemma_declaration(const Json& tool) {
  const Json* function = member(tool, "function");
  if (!function || !function->is_object()) throw FormatError("a tool needs a \"function\" object");
  std::string out = "declaration:" + python_str(member(*function, "name")) + "{description:" + kQuote +
                    python_str(member(*function, "description")) + kQuote;
  const Json* params = member(*function, "parameters");
  if (truthy(params)) {
    out += ",parameters:{";
    const Json* props = member(*params, "properties");
    if (truthy(props)) {
      if (!props->is_object()) throw FormatError("\"parameters\".\"properties\" must be an object");
      out += "properties:{" + gemma_parameters(*props) + "},";
    }
    if (truthy(member(*params, "required"))) out += "required:[" + quoted_list(member(*params, "required")) + "],";
    if (truthy(member(*params, "type"))) out += "type:" + std::string(kQuote) + upper(python_str(member(*params, "type"))) + kQuote + "}";
  }
  if (const Json* response = member(*function, "response")) {
    out += ",response:{";
    if (truthy(member(*response, "description")))
      out += "description:" + std::string(kQuote) + python_str(member(*response, "description")) + kQuote + ",";
    if (upper(python_str(member(*response, "type"))) == "OBJECT") out += "type:" + std::string(kQuote) + "OBJECT" + kQuote + "}";
  }
  return python_strip(out + "}");
}

}  // namespace

bool format_tool(ToolListFormat format, const std::string& tool_json, std::string* out, std::string* err) {
  try {
    const Json tool = parse(tool_json, "a tool");
    if (!tool.is_object()) throw FormatError("a tool must be a JSON object");
    const Json* function = member(tool, "function");
    if (format == ToolListFormat::kName) *out = python_str(function ? member(*function, "name") : nullptr);
    else if (format == ToolListFormat::kGemma4) *out = gemma_declaration(tool);
    else *out = python_json_of(tool, format == ToolListFormat::kJsonIndent4 ? 4 : -1);
    return true;
  } catch (const FormatError& e) {
    *err = e.what();
  }
  return false;
}

bool format_tool_arguments(ToolArgsFormat format, bool string_as_json, const std::string& arguments_json,
                           std::string* out, std::string* err) {
  try {
    const Json args = parse(arguments_json, "tool call arguments");
    if (args.is_string() && !string_as_json) return *out = args.get<std::string>(), true;
    if (format == ToolArgsFormat::kJson) return *out = python_json_of(args, -1), true;
    if (!args.is_object()) throw FormatError("tool call arguments must be an object or a string");
    out->clear();
    bool first = true;
    for (const auto& [key, value] : dictsort(args)) {
      *out += (first ? "" : ",") + key + ":" + gemma_argument(*value, false);
      first = false;
    }
    return true;
  } catch (const FormatError& e) {
    *err = e.what();
  }
  return false;
}

std::string format_tool_content(ToolContentFormat format, const std::string& content) {
  if (format == ToolContentFormat::kTrim) return python_strip(content);
  if (format == ToolContentFormat::kRaw) return content;
  std::string out;
  json_string(content, &out);
  return out;
}

bool python_json(const std::string& json_text, int indent, std::string* out, std::string* err) {
  try {
    *out = python_json_of(parse(json_text, "the value"), indent);
    return true;
  } catch (const FormatError& e) {
    *err = e.what();
  }
  return false;
}

}  // namespace saguaro
