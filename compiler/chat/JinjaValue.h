// Values of the Jinja subset: Python-like scalars, shared lists and dicts, namespaces and built-in functions.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace saguaro::chat {

/// A template problem: the message already names the line ("chat_template line N: ...").
struct TemplateError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// "chat_template line N: msg".
inline TemplateError error_at(int line, const std::string& msg) {
  return TemplateError("chat_template line " + std::to_string(line) + ": " + msg);
}

/// Raised by the template's own raise_exception(msg); `what()` also carries the line.
struct TemplateRaise : TemplateError {
  using TemplateError::TemplateError;
};

/// A problem found by a value operation or built-in, before the evaluator adds the line.
struct EvalError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Value;
using List = std::vector<Value>;
using KwArgs = std::vector<std::pair<std::string, Value>>;

/// An insertion-ordered string-keyed map (Python dict semantics for the keys templates use).
struct Dict {
  std::vector<std::pair<std::string, Value>> items;
  /// The value for `key`, or null.
  const Value* find(const std::string& key) const;
  /// Inserts or replaces `key`.
  void set(const std::string& key, Value v);
};

/// A built-in callable: positional and keyword arguments in, value out; throws TemplateError.
using Function = std::function<Value(const List& args, const KwArgs& kwargs)>;

struct Value {
  enum class Type { Undefined, None, Bool, Int, Float, String, List, Dict, Namespace, Function };
  Type type = Type::Undefined;
  bool b = false;
  int64_t i = 0;
  double f = 0;
  std::string s;
  std::shared_ptr<chat::List> list;  // List
  std::shared_ptr<chat::Dict> dict;  // Dict and Namespace (namespaces allow attribute assignment)
  std::shared_ptr<Function> fn;      // Function

  Value() = default;
  /// A value of type `t` whose payload is still empty; the factories below fill it in.
  explicit Value(Type t) : type(t) {}

  static Value none();
  static Value boolean(bool v);
  static Value integer(int64_t v);
  static Value number(double v);
  static Value string(std::string v);
  static Value list_of(chat::List v);
  static Value dict_of(chat::Dict v);
  static Value namespace_of(chat::Dict v);
  static Value function(Function f);

  bool is_undefined() const { return type == Type::Undefined; }
  bool is_string() const { return type == Type::String; }
  bool is_number() const { return type == Type::Int || type == Type::Float || type == Type::Bool; }
  bool is_mapping() const { return type == Type::Dict || type == Type::Namespace; }
  /// Python truthiness (undefined and none are false).
  bool truthy() const;
  /// Python str(): what `{{ v }}` prints (undefined prints nothing).
  std::string str() const;
  /// Python repr() (strings quoted), used inside printed lists and dicts.
  std::string repr() const;
  /// The numeric value as a double (bools count as 0/1).
  double as_double() const;
  /// Python/Jinja type name for error messages.
  const char* type_name() const;
};

/// Python ==.
bool equal(const Value& a, const Value& b);
/// json.dumps(v, ensure_ascii=False, indent=indent) as Hugging Face's tojson filter produces it (indent < 0: none).
std::string to_json(const Value& v, int indent);

/// Marks a byte that does not start a valid UTF-8 sequence.
constexpr uint32_t kInvalidCodePoint = 0xffffffffu;
/// Decodes the code point at byte k into *cp (kInvalidCodePoint for a bad byte); returns its length in bytes.
size_t utf8_next(const std::string& s, size_t k, uint32_t* cp);
/// Unicode code points of UTF-8 text (invalid bytes become U+FFFD).
std::vector<uint32_t> utf8_decode(const std::string& s);
/// UTF-8 encoding of code points.
std::string utf8_encode(const std::vector<uint32_t>& cps);
/// Python's str.isspace() for one code point.
bool is_py_space(uint32_t cp);
/// Python's str.strip(chars): strips `chars` (whitespace when `chars` is null) at the chosen ends.
std::string py_strip(const std::string& s, const std::string* chars, bool left, bool right);

}  // namespace saguaro::chat
