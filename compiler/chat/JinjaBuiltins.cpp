// Filters, tests and Python methods that chat templates use, with Jinja 3 / Python 3 semantics.
#include "JinjaBuiltins.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

namespace saguaro::chat {
namespace {

const char* const kFilters[] = {"trim",  "length",  "count", "tojson", "upper", "lower",      "capitalize",
                                "title", "default", "d",     "first",  "last",  "replace",    "string",
                                "indent", "safe",   "join",  "list",   "reverse", "abs",      "int",
                                "float", "items",   "dictsort", "map", "selectattr", "rejectattr"};
const char* const kTests[] = {"defined", "undefined", "none",  "string", "number", "integer", "float",
                              "boolean", "true",      "false", "mapping", "iterable", "sequence", "callable",
                              "even",    "odd",       "divisibleby", "eq", "equalto", "ne", "lt", "le", "gt",
                              "ge",      "in",        "sameas", "lower", "upper"};

[[noreturn]] void fail(const std::string& msg) { throw EvalError(msg); }

const Value& arg(const List& args, const KwArgs& kwargs, size_t pos, const char* key, const Value& fallback) {
  for (const auto& kv : kwargs)
    if (kv.first == key) return kv.second;
  return pos < args.size() ? args[pos] : fallback;
}

void expect_args(const std::string& what, const List& args, const KwArgs& kwargs, size_t max_pos,
                 std::initializer_list<const char*> keys) {
  if (args.size() > max_pos) fail(what + ": too many arguments");
  for (const auto& kv : kwargs)
    if (std::find_if(keys.begin(), keys.end(), [&](const char* k) { return kv.first == k; }) == keys.end())
      fail(what + ": unsupported argument '" + kv.first + "'");
}

const std::string& need_string(const std::string& what, const Value& v) {
  if (!v.is_string()) fail(what + " needs a string, got " + v.type_name());
  return v.s;
}

std::string ascii_map(std::string s, int (*f)(int)) {
  for (char& c : s) c = static_cast<char>(f(static_cast<unsigned char>(c)));
  return s;
}

// Python's str.title(): upper-case a letter after a non-letter, lower-case the others (ASCII letters).
std::string title_case(std::string s) {
  bool prev_alpha = false;
  for (char& c : s) {
    const bool alpha = std::isalpha(static_cast<unsigned char>(c)) != 0;
    if (alpha) c = static_cast<char>(prev_alpha ? std::tolower(c) : std::toupper(c));
    prev_alpha = alpha;
  }
  return s;
}

std::string replace_all(const std::string& s, const std::string& from, const std::string& to, int64_t count) {
  std::string out;
  size_t pos = 0;
  for (int64_t n = 0; count < 0 || n < count; ++n) {
    const size_t at = from.empty() ? (pos <= s.size() ? pos : std::string::npos) : s.find(from, pos);
    if (at == std::string::npos) break;
    out.append(s, pos, at - pos);
    out += to;
    if (from.empty()) {
      if (at == s.size()) return out;
      uint32_t cp;
      const size_t n_bytes = utf8_next(s, at, &cp);
      out.append(s, at, n_bytes);
      pos = at + n_bytes;
    } else {
      pos = at + from.size();
    }
  }
  return out + s.substr(std::min(pos, s.size()));
}

List split(const std::string& s, const Value& sep, int64_t maxsplit) {
  List out;
  if (sep.type == Value::Type::None || sep.is_undefined()) {  // runs of whitespace, no empty strings
    size_t k = 0;
    while (k < s.size()) {
      while (k < s.size() && std::isspace(static_cast<unsigned char>(s[k]))) ++k;
      if (k == s.size()) break;
      size_t e = k;
      if (maxsplit >= 0 && int64_t(out.size()) == maxsplit) e = s.size();
      while (e < s.size() && !std::isspace(static_cast<unsigned char>(s[e]))) ++e;
      std::string piece = s.substr(k, e - k);
      if (e == s.size() && maxsplit >= 0 && int64_t(out.size()) == maxsplit)
        piece = py_strip(piece, nullptr, false, true);
      out.push_back(Value::string(piece));
      k = e;
    }
    return out;
  }
  const std::string& d = need_string("split", sep);
  if (d.empty()) fail("split: empty separator");
  size_t pos = 0;
  for (size_t at; (maxsplit < 0 || int64_t(out.size()) < maxsplit) && (at = s.find(d, pos)) != std::string::npos;
       pos = at + d.size())
    out.push_back(Value::string(s.substr(pos, at - pos)));
  out.push_back(Value::string(s.substr(pos)));
  return out;
}

}  // namespace

List iterate(const Value& v, const std::string& what) {
  switch (v.type) {
    case Value::Type::Undefined: return {};
    case Value::Type::List: return *v.list;
    case Value::Type::Dict: {
      List keys;
      for (const auto& kv : v.dict->items) keys.push_back(Value::string(kv.first));
      return keys;
    }
    case Value::Type::String: {
      List chars;
      for (uint32_t cp : utf8_decode(v.s)) chars.push_back(Value::string(utf8_encode({cp})));
      return chars;
    }
    default: fail(what + ": " + v.type_name() + " is not iterable");
  }
}

namespace {

Value attribute(const Value& v, const std::string& name) {
  if (!v.is_mapping()) return Value();
  const Value* found = v.dict->find(name);
  return found ? *found : Value();
}

int64_t length(const Value& v) {
  switch (v.type) {
    case Value::Type::Undefined: return 0;
    case Value::Type::String: return int64_t(utf8_decode(v.s).size());
    case Value::Type::List: return int64_t(v.list->size());
    case Value::Type::Dict:
    case Value::Type::Namespace: return int64_t(v.dict->items.size());
    default: fail(std::string("length: ") + v.type_name() + " has no length");
  }
}

std::string indent(const std::string& s, int64_t width, bool first, bool blank) {
  const std::string pad(size_t(std::max<int64_t>(width, 0)), ' ');
  std::vector<std::string> lines;
  size_t pos = 0;
  for (size_t at; (at = s.find('\n', pos)) != std::string::npos; pos = at + 1) lines.push_back(s.substr(pos, at - pos));
  lines.push_back(s.substr(pos));  // Jinja appends "\n" before splitlines(), so a final empty line is dropped
  if (lines.size() > 1 && lines.back().empty()) lines.pop_back();
  std::string out = lines[0];
  for (size_t k = 1; k < lines.size(); ++k) out += "\n" + ((blank || !lines[k].empty()) ? pad : "") + lines[k];
  return first ? pad + out : out;
}

Value list_filter(const std::string& name, const Value& v, const List& args, const KwArgs& kwargs) {
  const List items = iterate(v, name);
  List out;
  if (name == "map") {
    const Value attr = arg({}, kwargs, 0, "attribute", Value());
    for (const Value& x : items) {
      if (attr.is_string()) out.push_back(attribute(x, attr.s));
      else if (!args.empty() && args[0].is_string() && is_filter(args[0].s))
        out.push_back(apply_filter(args[0].s, x, List(args.begin() + 1, args.end()), {}));
      else fail("map: needs attribute= or a filter name");
    }
    return Value::list_of(out);
  }
  // selectattr / rejectattr(attribute[, test[, test argument]])
  if (args.empty() || !args[0].is_string()) fail(name + ": needs an attribute name");
  const std::string test = args.size() > 1 ? need_string(name, args[1]) : "";
  if (!test.empty() && !is_test(test)) fail(name + ": unsupported test '" + test + "'");
  for (const Value& x : items) {
    const Value a = attribute(x, args[0].s);
    const bool ok = test.empty() ? a.truthy() : apply_test(test, a, List(args.begin() + 2, args.end()));
    if (ok == (name == "selectattr")) out.push_back(x);
  }
  return Value::list_of(out);
}

}  // namespace

bool is_filter(const std::string& name) {
  return std::find(std::begin(kFilters), std::end(kFilters), name) != std::end(kFilters);
}

bool is_test(const std::string& name) {
  return std::find(std::begin(kTests), std::end(kTests), name) != std::end(kTests);
}

Value apply_filter(const std::string& name, const Value& v, const List& args, const KwArgs& kwargs) {
  const Value none = Value::none();
  if (name == "safe" || name == "string") return name == "safe" ? v : Value::string(v.str());
  if (name == "length" || name == "count") return Value::integer(length(v));
  if (name == "tojson") {
    expect_args(name, args, kwargs, 0, {"indent", "ensure_ascii"});
    const Value ind = arg(args, kwargs, 99, "indent", none);
    if (!ind.is_undefined() && ind.type != Value::Type::None && ind.type != Value::Type::Int)
      fail("tojson: indent must be an integer");
    return Value::string(to_json(v, ind.type == Value::Type::Int ? int(ind.i) : -1));
  }
  if (name == "default" || name == "d") {
    const bool boolean = arg(args, kwargs, 1, "boolean", Value::boolean(false)).truthy();
    const bool use_default = v.is_undefined() || (boolean && !v.truthy());
    return use_default ? arg(args, kwargs, 0, "default_value", Value::string("")) : v;
  }
  if (name == "first" || name == "last" || name == "list" || name == "reverse") {
    List items = iterate(v, name);
    if (name == "list") return Value::list_of(items);
    if (name == "reverse") {
      std::reverse(items.begin(), items.end());
      return v.is_string() ? Value::string([&] {
        std::string s;
        for (const Value& c : items) s += c.s;
        return s;
      }())
                           : Value::list_of(items);
    }
    if (items.empty()) return Value();
    return name == "first" ? items.front() : items.back();
  }
  if (name == "join") {
    const std::string sep = arg(args, kwargs, 0, "d", Value::string("")).str();
    const Value attr = arg(args, kwargs, 1, "attribute", Value());
    std::string out;
    bool first = true;
    for (const Value& x : iterate(v, name)) {
      out += (first ? "" : sep) + (attr.is_string() ? attribute(x, attr.s) : x).str();
      first = false;
    }
    return Value::string(out);
  }
  if (name == "map" || name == "selectattr" || name == "rejectattr") return list_filter(name, v, args, kwargs);
  if (name == "items" || name == "dictsort") {
    if (v.is_undefined()) return Value::list_of({});
    if (!v.is_mapping()) fail(name + ": " + v.type_name() + " is not a mapping");
    auto pairs = v.dict->items;
    // dictsort with its defaults: by key, ignoring case (Gemma 4's template sorts tool arguments with it).
    if (name == "dictsort") {
      expect_args(name, args, kwargs, 0, {});
      std::stable_sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) {
        return ascii_map(a.first, ::tolower) < ascii_map(b.first, ::tolower);
      });
    }
    List out;
    for (const auto& kv : pairs) out.push_back(Value::list_of({Value::string(kv.first), kv.second}));
    return Value::list_of(out);
  }
  if (name == "abs") {
    if (v.type == Value::Type::Float) return Value::number(std::fabs(v.f));
    if (!v.is_number()) fail("abs needs a number");
    return Value::integer(std::llabs(v.type == Value::Type::Bool ? int64_t(v.b) : v.i));
  }
  if (name == "int" || name == "float") {
    const Value dflt = arg(args, kwargs, 0, "default", name == "int" ? Value::integer(0) : Value::number(0));
    double d = 0;
    if (v.is_number()) {
      d = v.as_double();
    } else if (v.is_string()) {
      char* end = nullptr;
      const std::string t = py_strip(v.s, nullptr, true, true);
      d = std::strtod(t.c_str(), &end);
      if (t.empty() || *end != '\0') return dflt;
    } else {
      return dflt;
    }
    return name == "int" ? Value::integer(static_cast<int64_t>(std::trunc(d))) : Value::number(d);
  }
  if (name == "indent") {
    return Value::string(indent(v.str(), arg(args, kwargs, 0, "width", Value::integer(4)).i,
                                arg(args, kwargs, 1, "first", Value::boolean(false)).truthy(),
                                arg(args, kwargs, 2, "blank", Value::boolean(false)).truthy()));
  }
  // The rest are string filters.
  const std::string s = v.str();
  if (name == "trim") {
    const Value chars = arg(args, kwargs, 0, "chars", none);
    return Value::string(py_strip(s, chars.is_string() ? &chars.s : nullptr, true, true));
  }
  if (name == "upper") return Value::string(ascii_map(s, ::toupper));
  if (name == "lower") return Value::string(ascii_map(s, ::tolower));
  if (name == "capitalize") {
    std::string out = ascii_map(s, ::tolower);
    if (!out.empty()) out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
    return Value::string(out);
  }
  if (name == "title") return Value::string(title_case(s));
  if (name == "replace") {
    if (args.size() < 2) fail("replace needs old and new strings");
    const Value count = arg(args, kwargs, 2, "count", none);
    return Value::string(replace_all(s, args[0].str(), args[1].str(), count.type == Value::Type::Int ? count.i : -1));
  }
  fail("unsupported filter '" + name + "'");
}

bool apply_test(const std::string& name, const Value& v, const List& args) {
  using T = Value::Type;
  auto other = [&]() -> const Value& {
    if (args.empty()) fail("test '" + name + "' needs an argument");
    return args[0];
  };
  if (name == "defined") return !v.is_undefined();
  if (name == "undefined") return v.is_undefined();
  if (name == "none") return v.type == T::None;
  if (name == "string") return v.is_string();
  if (name == "number") return v.type == T::Int || v.type == T::Float;
  if (name == "integer") return v.type == T::Int;
  if (name == "float") return v.type == T::Float;
  if (name == "boolean") return v.type == T::Bool;
  if (name == "true") return v.type == T::Bool && v.b;
  if (name == "false") return v.type == T::Bool && !v.b;
  if (name == "mapping") return v.is_mapping();
  if (name == "iterable") return v.type == T::List || v.type == T::Dict || v.type == T::String;
  if (name == "sequence") return v.type == T::List || v.type == T::Dict || v.type == T::String;
  if (name == "callable") return v.type == T::Function;
  if (name == "lower") return v.is_string() && ascii_map(v.s, ::tolower) == v.s;
  if (name == "upper") return v.is_string() && ascii_map(v.s, ::toupper) == v.s;
  if (name == "even" || name == "odd" || name == "divisibleby") {
    if (v.type != T::Int) fail("test '" + name + "' needs an integer");
    const int64_t d = name == "divisibleby" ? other().i : 2;
    if (d == 0) fail("divisibleby 0");
    const bool divisible = v.i % d == 0;
    return name == "odd" ? !divisible : divisible;
  }
  if (name == "eq" || name == "equalto") return equal(v, other());
  if (name == "ne") return !equal(v, other());
  if (name == "sameas") {
    const Value& o = other();
    return v.type == o.type && (v.type == T::None || v.type == T::Undefined || (v.type == T::Bool && v.b == o.b) ||
                                (v.list && v.list == o.list) || (v.dict && v.dict == o.dict));
  }
  if (name == "in") {
    const Value& o = other();
    if (o.is_string()) return v.is_string() && o.s.find(v.s) != std::string::npos;
    for (const Value& x : iterate(o, "in"))
      if (equal(x, v)) return true;
    return false;
  }
  // lt le gt ge
  const Value& o = other();
  int c;
  if (v.is_string() && o.is_string()) c = v.s.compare(o.s);
  else if (v.is_number() && o.is_number()) c = v.as_double() < o.as_double() ? -1 : v.as_double() > o.as_double();
  else fail("test '" + name + "' cannot compare " + v.type_name() + " with " + o.type_name());
  return name == "lt" ? c < 0 : name == "le" ? c <= 0 : name == "gt" ? c > 0 : c >= 0;
}

Value call_method(const Value& self, const std::string& name, const List& args, const KwArgs& kwargs) {
  const Value none = Value::none();
  if (self.is_string()) {
    const std::string& s = self.s;
    if (name == "startswith" || name == "endswith") {
      expect_args(name, args, kwargs, 1, {});
      const Value a = arg(args, kwargs, 0, "", none);
      List options = a.type == Value::Type::List ? *a.list : List{a};
      for (const Value& o : options) {
        const std::string& p = need_string(name, o);
        if (p.size() <= s.size() &&
            (name == "startswith" ? s.compare(0, p.size(), p) : s.compare(s.size() - p.size(), p.size(), p)) == 0)
          return Value::boolean(true);
      }
      return Value::boolean(false);
    }
    if (name == "strip" || name == "lstrip" || name == "rstrip") {
      expect_args(name, args, kwargs, 1, {});
      const Value chars = arg(args, kwargs, 0, "", none);
      return Value::string(py_strip(s, chars.is_string() ? &chars.s : nullptr, name != "rstrip", name != "lstrip"));
    }
    if (name == "split") {
      expect_args(name, args, kwargs, 2, {"sep", "maxsplit"});
      const Value maxsplit = arg(args, kwargs, 1, "maxsplit", Value::integer(-1));
      return Value::list_of(split(s, arg(args, kwargs, 0, "sep", none), maxsplit.i));
    }
    if (name == "upper" || name == "lower" || name == "title" || name == "capitalize" || name == "replace")
      return apply_filter(name, self, args, kwargs);
    if (name == "find") {
      expect_args(name, args, kwargs, 1, {});
      const size_t at = s.find(need_string(name, arg(args, kwargs, 0, "", none)));
      return Value::integer(at == std::string::npos ? -1 : int64_t(utf8_decode(s.substr(0, at)).size()));
    }
    if (name == "join") {
      expect_args(name, args, kwargs, 1, {});
      std::string out;
      bool first = true;
      for (const Value& x : iterate(arg(args, kwargs, 0, "", none), "join")) {
        out += (first ? "" : s) + need_string("join", x);
        first = false;
      }
      return Value::string(out);
    }
  } else if (self.is_mapping()) {
    if (name == "items" || name == "keys" || name == "values") {
      expect_args(name, args, kwargs, 0, {});
      List out;
      for (const auto& kv : self.dict->items)
        out.push_back(name == "items"  ? Value::list_of({Value::string(kv.first), kv.second})
                      : name == "keys" ? Value::string(kv.first)
                                       : kv.second);
      return Value::list_of(out);
    }
    if (name == "get") {
      expect_args(name, args, kwargs, 2, {});
      const Value* found = self.dict->find(arg(args, kwargs, 0, "", none).str());
      return found ? *found : arg(args, kwargs, 1, "", none);
    }
  }
  fail(std::string("unsupported method '") + name + "' of " + self.type_name());
}

}  // namespace saguaro::chat
