// Jinja values: construction, Python truthiness / str / repr / ==, JSON output and UTF-8 helpers.
#include "JinjaValue.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace saguaro::chat {

const Value* Dict::find(const std::string& key) const {
  for (const auto& kv : items)
    if (kv.first == key) return &kv.second;
  return nullptr;
}

void Dict::set(const std::string& key, Value v) {
  for (auto& kv : items)
    if (kv.first == key) return void(kv.second = std::move(v));
  items.emplace_back(key, std::move(v));
}

Value Value::none() { return Value(Type::None); }
Value Value::boolean(bool x) {
  Value v(Type::Bool);
  v.b = x;
  return v;
}
Value Value::integer(int64_t x) {
  Value v(Type::Int);
  v.i = x;
  return v;
}
Value Value::number(double x) {
  Value v(Type::Float);
  v.f = x;
  return v;
}
Value Value::string(std::string x) {
  Value v(Type::String);
  v.s = std::move(x);
  return v;
}
Value Value::list_of(chat::List x) {
  Value v(Type::List);
  v.list = std::make_shared<chat::List>(std::move(x));
  return v;
}
Value Value::dict_of(chat::Dict x) {
  Value v(Type::Dict);
  v.dict = std::make_shared<chat::Dict>(std::move(x));
  return v;
}
Value Value::namespace_of(chat::Dict x) {
  Value v = dict_of(std::move(x));
  v.type = Type::Namespace;
  return v;
}
Value Value::function(Function f) {
  Value v(Type::Function);
  v.fn = std::make_shared<Function>(std::move(f));
  return v;
}

bool Value::truthy() const {
  switch (type) {
    case Type::Undefined:
    case Type::None: return false;
    case Type::Bool: return b;
    case Type::Int: return i != 0;
    case Type::Float: return f != 0;
    case Type::String: return !s.empty();
    case Type::List: return !list->empty();
    case Type::Dict: return !dict->items.empty();
    case Type::Namespace:
    case Type::Function: return true;
  }
  return false;
}

double Value::as_double() const { return type == Type::Float ? f : type == Type::Bool ? (b ? 1 : 0) : double(i); }

const char* Value::type_name() const {
  static const char* const names[] = {"undefined", "none", "bool", "int", "float", "string", "list", "dict",
                                      "namespace", "function"};
  return names[static_cast<int>(type)];
}

namespace {

// Python's float repr: the shortest round-tripping digits, always with a '.' or an exponent.
std::string float_repr(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  char buf[40];
  for (int p = 1; p <= 17; ++p) {
    std::snprintf(buf, sizeof buf, "%.*g", p, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  std::string s = buf;
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

std::string string_repr(const std::string& s) {
  const char q = (s.find('\'') != std::string::npos && s.find('"') == std::string::npos) ? '"' : '\'';
  std::string out(1, q);
  for (unsigned char c : s) {
    if (c == '\\' || c == static_cast<unsigned char>(q)) out += '\\', out += char(c);
    else if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7f) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      out += b;
    } else {
      out += char(c);
    }
  }
  return out + q;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", c);
          out += b;
        } else {
          out += char(c);
        }
    }
  }
  return out + "\"";
}

void json_into(const Value& v, int indent, int depth, std::string* out) {
  const std::string nl = indent < 0 ? "" : "\n" + std::string(size_t(indent) * (depth + 1), ' ');
  const std::string nl_end = indent < 0 ? "" : "\n" + std::string(size_t(indent) * depth, ' ');
  const char* sep = indent < 0 ? ", " : ",";
  switch (v.type) {
    case Value::Type::Undefined:
    case Value::Type::None: *out += "null"; return;
    case Value::Type::Bool: *out += v.b ? "true" : "false"; return;
    case Value::Type::Int: *out += std::to_string(v.i); return;
    case Value::Type::Float:
      *out += std::isnan(v.f) ? "NaN" : std::isinf(v.f) ? (v.f > 0 ? "Infinity" : "-Infinity") : float_repr(v.f);
      return;
    case Value::Type::String: *out += json_string(v.s); return;
    case Value::Type::List:
      if (v.list->empty()) return void(*out += "[]");
      *out += "[";
      for (size_t k = 0; k < v.list->size(); ++k) {
        if (k) *out += sep;
        *out += nl;
        json_into((*v.list)[k], indent, depth + 1, out);
      }
      *out += nl_end + "]";
      return;
    case Value::Type::Dict:
    case Value::Type::Namespace:
      if (v.dict->items.empty()) return void(*out += "{}");
      *out += "{";
      for (size_t k = 0; k < v.dict->items.size(); ++k) {
        if (k) *out += sep;
        *out += nl + json_string(v.dict->items[k].first) + ": ";
        json_into(v.dict->items[k].second, indent, depth + 1, out);
      }
      *out += nl_end + "}";
      return;
    case Value::Type::Function: throw EvalError("tojson: a function is not JSON serializable");
  }
}

}  // namespace

std::string Value::str() const {
  switch (type) {
    case Type::Undefined: return "";
    case Type::None: return "None";
    case Type::Bool: return b ? "True" : "False";
    case Type::Int: return std::to_string(i);
    case Type::Float: return float_repr(f);
    case Type::String: return s;
    default: return repr();
  }
}

std::string Value::repr() const {
  switch (type) {
    case Type::String: return string_repr(s);
    case Type::List: {
      std::string out = "[";
      for (size_t k = 0; k < list->size(); ++k) out += (k ? ", " : "") + (*list)[k].repr();
      return out + "]";
    }
    case Type::Dict: {
      std::string out = "{";
      for (size_t k = 0; k < dict->items.size(); ++k)
        out += (k ? ", " : "") + string_repr(dict->items[k].first) + ": " + dict->items[k].second.repr();
      return out + "}";
    }
    case Type::Namespace: return "<Namespace>";
    case Type::Function: return "<function>";
    default: return str();
  }
}

bool equal(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) {
    if (a.type == Value::Type::Float || b.type == Value::Type::Float) return a.as_double() == b.as_double();
    return (a.type == Value::Type::Bool ? int64_t(a.b) : a.i) == (b.type == Value::Type::Bool ? int64_t(b.b) : b.i);
  }
  if (a.type != b.type) return false;
  switch (a.type) {
    case Value::Type::Undefined:
    case Value::Type::None: return true;
    case Value::Type::String: return a.s == b.s;
    case Value::Type::List:
      if (a.list->size() != b.list->size()) return false;
      for (size_t k = 0; k < a.list->size(); ++k)
        if (!equal((*a.list)[k], (*b.list)[k])) return false;
      return true;
    case Value::Type::Dict:
      if (a.dict->items.size() != b.dict->items.size()) return false;
      for (const auto& kv : a.dict->items) {
        const Value* o = b.dict->find(kv.first);
        if (!o || !equal(kv.second, *o)) return false;
      }
      return true;
    default: return a.dict == b.dict && a.fn == b.fn;
  }
}

std::string to_json(const Value& v, int indent) {
  std::string out;
  json_into(v, indent, 0, &out);
  return out;
}

size_t utf8_next(const std::string& s, size_t k, uint32_t* cp) {
  const unsigned char c = s[k];
  const size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  uint32_t v = n == 1 ? c : n == 2 ? c & 0x1f : n == 3 ? c & 0x0f : c & 0x07;
  bool ok = n > 0 && k + n <= s.size();
  for (size_t j = 1; ok && j < n; ++j) {
    const unsigned char d = s[k + j];
    ok = (d & 0xc0) == 0x80;
    v = (v << 6) | (d & 0x3f);
  }
  *cp = ok ? v : kInvalidCodePoint;
  return ok ? n : 1;
}

std::vector<uint32_t> utf8_decode(const std::string& s) {
  std::vector<uint32_t> cps;
  uint32_t cp;
  for (size_t k = 0, n; k < s.size(); k += n) {
    n = utf8_next(s, k, &cp);
    cps.push_back(cp == kInvalidCodePoint ? 0xfffd : cp);
  }
  return cps;
}

std::string utf8_encode(const std::vector<uint32_t>& cps) {
  std::string out;
  for (uint32_t cp : cps) {
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xc0 | (cp >> 6)), out += char(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      out += char(0xe0 | (cp >> 12)), out += char(0x80 | ((cp >> 6) & 0x3f)), out += char(0x80 | (cp & 0x3f));
    } else {
      out += char(0xf0 | (cp >> 18)), out += char(0x80 | ((cp >> 12) & 0x3f));
      out += char(0x80 | ((cp >> 6) & 0x3f)), out += char(0x80 | (cp & 0x3f));
    }
  }
  return out;
}

bool is_py_space(uint32_t cp) {
  return (cp >= 0x09 && cp <= 0x0d) || (cp >= 0x1c && cp <= 0x20) || cp == 0x85 || cp == 0xa0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 || cp == 0x2029 || cp == 0x202f || cp == 0x205f ||
         cp == 0x3000;
}

std::string py_strip(const std::string& s, const std::string* chars, bool left, bool right) {
  std::vector<uint32_t> set;
  if (chars) set = utf8_decode(*chars);
  auto strip = [&](uint32_t cp) {
    if (!chars) return is_py_space(cp);
    for (uint32_t c : set)
      if (c == cp) return true;
    return false;
  };
  std::vector<size_t> starts;  // byte offset of each code point; invalid bytes are one code point, never stripped
  std::vector<uint32_t> cps;
  uint32_t cp;
  for (size_t k = 0, n; k < s.size(); k += n) {
    n = utf8_next(s, k, &cp);
    starts.push_back(k);
    cps.push_back(cp);
  }
  size_t b = 0, e = cps.size();
  while (left && b < e && strip(cps[b])) ++b;
  while (right && e > b && strip(cps[e - 1])) --e;
  const size_t from = b < starts.size() ? starts[b] : s.size();
  const size_t to = e < starts.size() ? starts[e] : s.size();
  return s.substr(from, to - from);
}

}  // namespace saguaro::chat
