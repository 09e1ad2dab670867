// Tree-walking evaluator of the Jinja subset: scopes (for loops and macros get their own), namespaces, loop
// variables, loop controls, operators with Python semantics, and the globals namespace / range / raise_exception.
#include "JinjaTemplate.h"

#include <cmath>
#include <unordered_map>

#include "JinjaBuiltins.h"
#include "JinjaParser.h"

namespace saguaro::chat {
namespace {

// Thrown by raise_exception(); the evaluator turns it into a TemplateRaise carrying the line.
struct EvalRaise : EvalError {
  using EvalError::EvalError;
};

enum class Flow { Next, Break, Continue };

int64_t as_int(const Value& v) { return v.type == Value::Type::Bool ? int64_t(v.b) : v.i; }

Value arithmetic(const std::string& op, const Value& a, const Value& b) {
  using T = Value::Type;
  if (op == "~") return Value::string(a.str() + b.str());
  if (op == "+" && a.is_string() && b.is_string()) return Value::string(a.s + b.s);
  if (op == "+" && a.type == T::List && b.type == T::List) {
    List l = *a.list;
    l.insert(l.end(), b.list->begin(), b.list->end());
    return Value::list_of(l);
  }
  if (op == "*" && ((a.is_string() && b.type == T::Int) || (a.type == T::Int && b.is_string()))) {
    const std::string& s = a.is_string() ? a.s : b.s;
    std::string out;
    for (int64_t n = a.is_string() ? b.i : a.i; n > 0; --n) out += s;
    return Value::string(out);
  }
  if (op == "%" && a.is_string()) throw EvalError("unsupported string formatting with '%'");
  if (!a.is_number() || !b.is_number())
    throw EvalError("unsupported operand types for " + op + ": " + a.type_name() + " and " + b.type_name());
  const bool ints = a.type != T::Float && b.type != T::Float;
  const double x = a.as_double(), y = b.as_double();
  if ((op == "/" || op == "//" || op == "%") && y == 0) throw EvalError("division by zero");
  if (op == "/") return Value::number(x / y);
  if (ints && op != "**") {
    const int64_t i = as_int(a), j = as_int(b);
    if (op == "+") return Value::integer(i + j);
    if (op == "-") return Value::integer(i - j);
    if (op == "*") return Value::integer(i * j);
    const int64_t q = i / j - ((i % j != 0) && ((i < 0) != (j < 0)));  // Python floors
    return Value::integer(op == "//" ? q : i - q * j);
  }
  if (op == "+") return Value::number(x + y);
  if (op == "-") return Value::number(x - y);
  if (op == "*") return Value::number(x * y);
  if (op == "**") {
    if (ints && as_int(b) >= 0) return Value::integer(static_cast<int64_t>(std::pow(x, y)));
    return Value::number(std::pow(x, y));
  }
  if (op == "//") return Value::number(std::floor(x / y));
  return Value::number(x - std::floor(x / y) * y);
}

bool less(const Value& a, const Value& b) {
  if (a.is_string() && b.is_string()) return a.s < b.s;
  if (a.is_number() && b.is_number()) return a.as_double() < b.as_double();
  throw EvalError(std::string("cannot compare ") + a.type_name() + " with " + b.type_name());
}

bool contains(const Value& container, const Value& item) {
  if (container.is_string()) {
    if (!item.is_string()) throw EvalError(std::string("'in <string>' needs a string, got ") + item.type_name());
    return container.s.find(item.s) != std::string::npos;
  }
  if (container.is_mapping()) return item.is_string() && container.dict->find(item.s);
  for (const Value& x : iterate(container, "in"))
    if (equal(x, item)) return true;
  return false;
}

// Python slice indices for a sequence of n elements.
std::vector<size_t> slice_indices(int64_t n, const Value& start, const Value& stop, const Value& step) {
  const int64_t st = step.type == Value::Type::Int ? step.i : 1;
  if (st == 0) throw EvalError("slice step cannot be zero");
  auto clamp = [&](const Value& v, int64_t dflt) {
    if (v.type != Value::Type::Int) return dflt;
    int64_t i = v.i < 0 ? v.i + n : v.i;
    return st > 0 ? std::min(std::max<int64_t>(i, 0), n) : std::min(std::max<int64_t>(i, -1), n - 1);
  };
  const int64_t b = clamp(start, st > 0 ? 0 : n - 1), e = clamp(stop, st > 0 ? n : -1);
  std::vector<size_t> idx;
  for (int64_t i = b; st > 0 ? i < e : i > e; i += st) idx.push_back(size_t(i));
  return idx;
}

class Renderer {
 public:
  explicit Renderer(const Dict& vars) {
    scopes_.emplace_back();
    auto& g = scopes_.back();
    g["namespace"] = Value::function([](const List& args, const KwArgs& kwargs) {
      Dict d;
      for (const Value& a : args) {
        if (!a.is_mapping()) throw EvalError("namespace() takes keyword arguments or a dict");
        for (const auto& kv : a.dict->items) d.set(kv.first, kv.second);
      }
      for (const auto& kv : kwargs) d.set(kv.first, kv.second);
      return Value::namespace_of(d);
    });
    g["dict"] = Value::function([](const List& args, const KwArgs& kwargs) {
      if (!args.empty()) throw EvalError("dict() takes keyword arguments only");
      Dict d;
      for (const auto& kv : kwargs) d.set(kv.first, kv.second);
      return Value::dict_of(d);
    });
    g["range"] = Value::function([](const List& args, const KwArgs&) {
      if (args.empty() || args.size() > 3) throw EvalError("range() takes 1 to 3 integers");
      for (const Value& a : args)
        if (a.type != Value::Type::Int) throw EvalError("range() takes integers");
      const int64_t b = args.size() > 1 ? args[0].i : 0, e = args.size() > 1 ? args[1].i : args[0].i;
      const int64_t st = args.size() > 2 ? args[2].i : 1;
      if (st == 0) throw EvalError("range() step cannot be zero");
      if ((e - b) / st > 100000) throw EvalError("range() too long");
      List out;
      for (int64_t i = b; st > 0 ? i < e : i > e; i += st) out.push_back(Value::integer(i));
      return Value::list_of(out);
    });
    g["raise_exception"] = Value::function([](const List& args, const KwArgs&) -> Value {
      throw EvalRaise("raise_exception: " + (args.empty() ? std::string() : args[0].str()));
    });
    scopes_.emplace_back();
    for (const auto& kv : vars.items) scopes_.back()[kv.first] = kv.second;
  }

  std::string run(const Body& body) {
    std::string out;
    out_ = &out;
    exec(body);
    return out;
  }

 private:
  Flow exec(const Body& body) {
    for (const auto& s : body) {
      const Flow f = exec(*s);
      if (f != Flow::Next) return f;
    }
    return Flow::Next;
  }

  Flow exec(const Stmt& s) {
    switch (s.kind) {
      case Stmt::Kind::Text: *out_ += s.text; return Flow::Next;
      case Stmt::Kind::Output: *out_ += eval(*s.expr).str(); return Flow::Next;
      case Stmt::Kind::If:
        for (const auto& br : s.branches)
          if (!br.first || eval(*br.first).truthy()) return exec(br.second);
        return Flow::Next;
      case Stmt::Kind::For: return exec_for(s);
      case Stmt::Kind::Set:
        if (s.targets.size() == 2) {
          Value ns = lookup(s.targets[0]);
          if (ns.type != Value::Type::Namespace)
            throw error_at(s.line, "cannot assign attribute '" + s.targets[1] + "' of " + ns.type_name() +
                                       " (only namespace() objects)");
          ns.dict->set(s.targets[1], eval(*s.expr));
        } else {
          scopes_.back()[s.targets[0]] = eval(*s.expr);
        }
        return Flow::Next;
      case Stmt::Kind::SetBlock: scopes_.back()[s.targets[0]] = Value::string(capture(s.body)); return Flow::Next;
      case Stmt::Kind::Macro: scopes_.back()[s.targets[0]] = macro(s); return Flow::Next;
      case Stmt::Kind::Break:
      case Stmt::Kind::Continue:
        if (loop_depth_ == 0) throw error_at(s.line, "'break' or 'continue' outside a for loop");
        return s.kind == Stmt::Kind::Break ? Flow::Break : Flow::Continue;
    }
    return Flow::Next;
  }

  Flow exec_for(const Stmt& s) {
    List items = iterate_at(eval(*s.expr), s.line);
    if (s.filter) {
      List kept;
      for (const Value& item : items) {
        scopes_.emplace_back();
        bind(s, item);
        if (eval(*s.filter).truthy()) kept.push_back(item);
        scopes_.pop_back();
      }
      items = std::move(kept);
    }
    if (items.empty()) return exec(s.else_body);
    const int64_t n = int64_t(items.size());
    ++loop_depth_;
    for (int64_t k = 0; k < n; ++k) {
      scopes_.emplace_back();
      bind(s, items[size_t(k)]);
      Dict loop;
      loop.set("index0", Value::integer(k));
      loop.set("index", Value::integer(k + 1));
      loop.set("revindex0", Value::integer(n - 1 - k));
      loop.set("revindex", Value::integer(n - k));
      loop.set("first", Value::boolean(k == 0));
      loop.set("last", Value::boolean(k == n - 1));
      loop.set("length", Value::integer(n));
      loop.set("previtem", k > 0 ? items[size_t(k - 1)] : Value());
      loop.set("nextitem", k + 1 < n ? items[size_t(k + 1)] : Value());
      scopes_.back()["loop"] = Value::dict_of(std::move(loop));
      const Flow f = exec(s.body);
      scopes_.pop_back();
      if (f == Flow::Break) break;
    }
    --loop_depth_;
    return Flow::Next;
  }

  // Binds the loop target(s) of `s` to `item` in the innermost scope (unpacking pairs for `for k, v in ...`).
  void bind(const Stmt& s, const Value& item) {
    if (s.targets.size() == 1) return void(scopes_.back()[s.targets[0]] = item);
    if (item.type != Value::Type::List || item.list->size() != s.targets.size())
      throw error_at(s.line, "cannot unpack " + std::string(item.type_name()) + " into " +
                                 std::to_string(s.targets.size()) + " loop variables");
    for (size_t k = 0; k < s.targets.size(); ++k) scopes_.back()[s.targets[k]] = (*item.list)[k];
  }

  std::string capture(const Body& body) {
    std::string buf;
    std::string* saved = out_;
    out_ = &buf;
    exec(body);
    out_ = saved;
    return buf;
  }

  Value macro(const Stmt& s) {
    return Value::function([this, &s](const List& args, const KwArgs& kwargs) {
      if (args.size() > s.params.size()) throw EvalError("macro '" + s.targets[0] + "': too many arguments");
      scopes_.emplace_back();
      for (size_t k = 0; k < s.params.size(); ++k) {
        const auto& p = s.params[k];
        Value v = k < args.size() ? args[k] : p.second ? eval(*p.second) : Value();
        for (const auto& kv : kwargs)
          if (kv.first == p.first) v = kv.second;
        scopes_.back()[p.first] = v;
      }
      const int saved_depth = loop_depth_;
      loop_depth_ = 0;
      std::string text = capture(s.body);
      loop_depth_ = saved_depth;
      scopes_.pop_back();
      return Value::string(text);
    });
  }

  Value lookup(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->find(name);
      if (f != it->end()) return f->second;
    }
    return Value();
  }

  List iterate_at(const Value& v, int line) {
    try {
      return iterate(v, "for");
    } catch (const EvalError& e) {
      throw error_at(line, e.what());
    }
  }

  Value eval(const Expr& e) {
    try {
      return eval_inner(e);
    } catch (const EvalRaise& r) {
      throw TemplateRaise(error_at(e.line, r.what()).what());
    } catch (const EvalError& err) {
      throw error_at(e.line, err.what());
    }
  }

  Value eval_inner(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::Literal: return e.value;
      case Expr::Kind::Name: return lookup(e.name);
      case Expr::Kind::List: {
        List l;
        for (const auto& a : e.args) l.push_back(eval(*a));
        return Value::list_of(l);
      }
      case Expr::Kind::Dict: {
        Dict d;
        for (size_t k = 0; k + 1 < e.args.size(); k += 2) {
          const Value key = eval(*e.args[k]);
          if (!key.is_string()) throw EvalError("dict keys must be strings");
          d.set(key.s, eval(*e.args[k + 1]));
        }
        return Value::dict_of(d);
      }
      case Expr::Kind::Attr: {
        const Value obj = eval(*e.args[0]);
        if (obj.is_undefined()) throw EvalError("cannot read attribute '" + e.name + "' of an undefined value");
        if (!obj.is_mapping()) return Value();
        const Value* v = obj.dict->find(e.name);
        return v ? *v : Value();
      }
      case Expr::Kind::Index: return index(eval(*e.args[0]), eval(*e.args[1]));
      case Expr::Kind::Slice: {
        const Value obj = eval(*e.args[0]);
        Value parts[3];
        for (int k = 0; k < 3; ++k)
          if (e.args[size_t(k) + 1]) parts[k] = eval(*e.args[size_t(k) + 1]);
        return slice(obj, parts);
      }
      case Expr::Kind::Call: return call(e);
      case Expr::Kind::Filter: {
        List args;
        KwArgs kwargs;
        eval_args(e, &args, &kwargs);
        return apply_filter(e.name, eval(*e.args[0]), args, kwargs);
      }
      case Expr::Kind::Test: {
        List args;
        KwArgs kwargs;
        eval_args(e, &args, &kwargs);
        return Value::boolean(apply_test(e.name, eval(*e.args[0]), args) != e.negated);
      }
      case Expr::Kind::Unary: {
        const Value v = eval(*e.args[0]);
        if (e.name == "not") return Value::boolean(!v.truthy());
        if (!v.is_number()) throw EvalError("bad operand type for unary " + e.name + ": " + v.type_name());
        if (e.name == "+") return v;
        return v.type == Value::Type::Float ? Value::number(-v.f) : Value::integer(-as_int(v));
      }
      case Expr::Kind::Binary: return binary(e);
      case Expr::Kind::Cond:
        if (eval(*e.args[0]).truthy()) return eval(*e.args[1]);
        return e.args[2] ? eval(*e.args[2]) : Value();
    }
    return Value();
  }

  void eval_args(const Expr& e, List* args, KwArgs* kwargs) {
    for (size_t k = 1; k < e.args.size(); ++k) args->push_back(eval(*e.args[k]));
    for (const auto& kv : e.kwargs) kwargs->emplace_back(kv.first, eval(*kv.second));
  }

  Value binary(const Expr& e) {
    const std::string& op = e.name;
    const Value a = eval(*e.args[0]);
    if (op == "and") return a.truthy() ? eval(*e.args[1]) : a;
    if (op == "or") return a.truthy() ? a : eval(*e.args[1]);
    const Value b = eval(*e.args[1]);
    if (op == "==") return Value::boolean(equal(a, b));
    if (op == "!=") return Value::boolean(!equal(a, b));
    if (op == "<") return Value::boolean(less(a, b));
    if (op == ">") return Value::boolean(less(b, a));
    if (op == "<=") return Value::boolean(!less(b, a));
    if (op == ">=") return Value::boolean(!less(a, b));
    if (op == "in") return Value::boolean(contains(b, a));
    if (op == "not in") return Value::boolean(!contains(b, a));
    if (op != "~" && (a.is_undefined() || b.is_undefined()))
      throw EvalError("undefined value in '" + op + "' expression");
    return arithmetic(op, a, b);
  }

  static Value index(const Value& obj, const Value& key) {
    switch (obj.type) {
      case Value::Type::Undefined: throw EvalError("cannot subscript an undefined value");
      case Value::Type::Dict:
      case Value::Type::Namespace: {
        const Value* v = key.is_string() ? obj.dict->find(key.s) : nullptr;
        return v ? *v : Value();
      }
      case Value::Type::List:
      case Value::Type::String: {
        if (key.type != Value::Type::Int) return Value();
        const List items = obj.type == Value::Type::List ? *obj.list : iterate(obj, "index");
        const int64_t n = int64_t(items.size()), i = key.i < 0 ? key.i + n : key.i;
        return i >= 0 && i < n ? items[size_t(i)] : Value();
      }
      default: return Value();
    }
  }

  static Value slice(const Value& obj, const Value parts[3]) {
    if (obj.type != Value::Type::List && !obj.is_string())
      throw EvalError(std::string("cannot slice ") + obj.type_name());
    const List items = obj.type == Value::Type::List ? *obj.list : iterate(obj, "slice");
    List out;
    for (size_t i : slice_indices(int64_t(items.size()), parts[0], parts[1], parts[2])) out.push_back(items[i]);
    if (obj.type == Value::Type::List) return Value::list_of(out);
    std::string s;
    for (const Value& c : out) s += c.s;
    return Value::string(s);
  }

  Value call(const Expr& e) {
    List args;
    KwArgs kwargs;
    eval_args(e, &args, &kwargs);
    const Expr& callee = *e.args[0];
    if (callee.kind == Expr::Kind::Attr) {
      const Value self = eval(*callee.args[0]);
      if (self.is_undefined()) throw EvalError("cannot call '" + callee.name + "' of an undefined value");
      const Value* member = self.is_mapping() ? self.dict->find(callee.name) : nullptr;
      if (member && member->type == Value::Type::Function) return (*member->fn)(args, kwargs);
      return call_method(self, callee.name, args, kwargs);
    }
    const Value f = eval(callee);
    if (f.type != Value::Type::Function) {
      if (callee.kind == Expr::Kind::Name && f.is_undefined())
        throw EvalError("unsupported function '" + callee.name + "'");
      throw EvalError(std::string("cannot call ") + f.type_name());
    }
    return (*f.fn)(args, kwargs);
  }

  std::vector<std::unordered_map<std::string, Value>> scopes_;
  std::string* out_ = nullptr;
  int loop_depth_ = 0;
};

}  // namespace

Template::Template(const std::string& src, const LexOptions& opts) : body_(parse(lex(src, opts))) {}

std::string Template::render(const Dict& vars) const { return Renderer(vars).run(body_); }

}  // namespace saguaro::chat
