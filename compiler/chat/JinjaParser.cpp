// Recursive-descent parser with Jinja's precedence: conditional, or, and, not, comparisons, + -, ~, * / // %, **,
// unary, then postfix (attribute, subscript, slice, call) followed by filters and tests.
#include "JinjaParser.h"

#include "JinjaBuiltins.h"

namespace saguaro::chat {
namespace {

using K = Token::Kind;

class Parser {
 public:
  explicit Parser(const std::vector<Token>& toks) : t_(toks) {}

  Body run() {
    std::string end;
    return body({}, &end);
  }

 private:
  // Real templates nest a few levels deep. Limits keep a hostile one from exhausting the stack: the parser recurses
  // once per level of brackets, unary operators and blocks, and the evaluator and the tree's destructor once per
  // level of the tree (a chain such as `a ~ a ~ a ...` is parsed in a loop but is as deep as it is long).
  static constexpr int kMaxNesting = 100, kMaxTreeHeight = 256;
  int nesting_ = 0;
  struct Nested {  // one level of the parser's recursion, for as long as it lasts
    explicit Nested(Parser* p) : p(p) {
      if (p->nesting_ == kMaxNesting) p->fail("nested more than " + std::to_string(kMaxNesting) + " levels deep");
      ++p->nesting_;
    }
    ~Nested() { --p->nesting_; }
    Parser* p;
  };
  // True when the tree under `e` is more than `budget` levels high (recursing at most `budget` deep).
  static bool higher_than(const Expr& e, int budget) {
    if (budget == 0) return true;
    for (const ExprPtr& a : e.args)
      if (a && higher_than(*a, budget - 1)) return true;
    for (const auto& kw : e.kwargs)
      if (kw.second && higher_than(*kw.second, budget - 1)) return true;
    return false;
  }

  const Token& peek(size_t ahead = 0) const { return t_[std::min(p_ + ahead, t_.size() - 1)]; }
  const Token& next() { return t_[std::min(p_++, t_.size() - 1)]; }
  bool is_op(const char* op, size_t ahead = 0) const { return peek(ahead).kind == K::Op && peek(ahead).text == op; }
  bool is_name(const char* n, size_t ahead = 0) const { return peek(ahead).kind == K::Name && peek(ahead).text == n; }
  bool accept_op(const char* op) { return is_op(op) ? (++p_, true) : false; }
  bool accept_name(const char* n) { return is_name(n) ? (++p_, true) : false; }

  static std::string describe(const Token& t) {
    switch (t.kind) {
      case K::End: return "end of template";
      case K::VarEnd: return "'}}'";
      case K::BlockEnd: return "'%}'";
      case K::Text: return "text";
      default: return "'" + t.text + "'";
    }
  }
  [[noreturn]] void fail(const std::string& msg) const { throw error_at(peek().line, msg); }
  void expect_op(const char* op) {
    if (!accept_op(op)) fail(std::string("expected '") + op + "', found " + describe(peek()));
  }
  std::string expect_name() {
    if (peek().kind != K::Name) fail("expected a name, found " + describe(peek()));
    return next().text;
  }
  void expect_block_end() {
    if (peek().kind != K::BlockEnd) fail("expected '%}', found " + describe(peek()));
    ++p_;
  }

  static ExprPtr make(Expr::Kind k, int line, std::string name = "") {
    auto e = std::make_unique<Expr>();
    e->kind = k;
    e->line = line;
    e->name = std::move(name);
    return e;
  }
  static std::unique_ptr<Stmt> make_stmt(Stmt::Kind k, int line) {
    auto s = std::make_unique<Stmt>();
    s->kind = k;
    s->line = line;
    return s;
  }

  // Statements until one of `enders` (e.g. "endif", "elif", "else"); *end gets the ender found (tag consumed up to
  // its name). At top level `enders` is empty and the body runs to the end of the template.
  Body body(const std::vector<std::string>& enders, std::string* end) {
    Body out;
    for (;;) {
      const Token& tk = peek();
      if (tk.kind == K::End) {
        if (!enders.empty()) throw error_at(tk.line, "unexpected end of template, expected '" + enders.back() + "'");
        return out;
      }
      if (tk.kind == K::Text) {
        auto s = make_stmt(Stmt::Kind::Text, tk.line);
        s->text = tk.text;
        out.push_back(std::move(s));
        ++p_;
      } else if (tk.kind == K::VarBegin) {
        ++p_;
        auto s = make_stmt(Stmt::Kind::Output, tk.line);
        s->expr = expression();
        if (peek().kind != K::VarEnd) fail("expected '}}', found " + describe(peek()));
        ++p_;
        out.push_back(std::move(s));
      } else {  // BlockBegin
        ++p_;
        const int line = peek().line;
        const std::string kw = expect_name();
        for (const std::string& e : enders)
          if (kw == e) {
            *end = kw;
            return out;
          }
        statement(kw, line, &out);
      }
    }
  }

  void statement(const std::string& kw, int line, Body* out) {
    const Nested level(this);
    if (kw == "if") return out->push_back(if_stmt(line));
    if (kw == "for") return out->push_back(for_stmt(line));
    if (kw == "set") return out->push_back(set_stmt(line));
    if (kw == "macro") return out->push_back(macro_stmt(line));
    if (kw == "break" || kw == "continue") {
      expect_block_end();
      return out->push_back(make_stmt(kw == "break" ? Stmt::Kind::Break : Stmt::Kind::Continue, line));
    }
    if (kw == "generation") {  // Hugging Face's assistant-mask marker: renders its body unchanged
      expect_block_end();
      std::string end;
      Body inner = body({"endgeneration"}, &end);
      expect_block_end();
      for (auto& s : inner) out->push_back(std::move(s));
      return;
    }
    static const char* const enders[] = {"endif", "elif", "else", "endfor", "endset", "endmacro", "endgeneration"};
    for (const char* e : enders)
      if (kw == e) throw error_at(line, "unexpected '" + kw + "'");
    throw error_at(line, "unsupported statement '" + kw + "'");
  }

  std::unique_ptr<Stmt> if_stmt(int line) {
    auto s = make_stmt(Stmt::Kind::If, line);
    ExprPtr cond = expression();
    for (;;) {
      expect_block_end();
      std::string end;
      Body b = body(cond ? std::vector<std::string>{"elif", "else", "endif"} : std::vector<std::string>{"endif"}, &end);
      s->branches.emplace_back(std::move(cond), std::move(b));
      if (end == "endif") break;
      cond = end == "elif" ? expression() : nullptr;
    }
    expect_block_end();
    return s;
  }

  std::unique_ptr<Stmt> for_stmt(int line) {
    auto s = make_stmt(Stmt::Kind::For, line);
    s->targets.push_back(expect_name());
    while (accept_op(",")) s->targets.push_back(expect_name());
    if (!accept_name("in")) fail("expected 'in' in for loop, found " + describe(peek()));
    s->expr = or_expr();  // no conditional here: `if` starts the loop filter
    if (accept_name("if")) s->filter = or_expr();
    if (is_name("recursive")) fail("unsupported loop modifier 'recursive'");
    expect_block_end();
    std::string end;
    s->body = body({"else", "endfor"}, &end);
    if (end == "else") {
      expect_block_end();
      s->else_body = body({"endfor"}, &end);
    }
    expect_block_end();
    return s;
  }

  std::unique_ptr<Stmt> set_stmt(int line) {
    auto s = make_stmt(Stmt::Kind::Set, line);
    s->targets.push_back(expect_name());
    if (accept_op(".")) s->targets.push_back(expect_name());
    if (is_op(",")) fail("unsupported tuple assignment in 'set'");
    if (peek().kind == K::BlockEnd && s->targets.size() == 1) {
      ++p_;
      s->kind = Stmt::Kind::SetBlock;
      std::string end;
      s->body = body({"endset"}, &end);
      expect_block_end();
      return s;
    }
    expect_op("=");
    s->expr = expression();
    expect_block_end();
    return s;
  }

  std::unique_ptr<Stmt> macro_stmt(int line) {
    auto s = make_stmt(Stmt::Kind::Macro, line);
    s->targets.push_back(expect_name());
    expect_op("(");
    while (!accept_op(")")) {
      if (!s->params.empty()) expect_op(",");
      std::string name = expect_name();
      s->params.emplace_back(std::move(name), accept_op("=") ? expression() : nullptr);
    }
    expect_block_end();
    std::string end;
    s->body = body({"endmacro"}, &end);
    expect_block_end();
    return s;
  }

  ExprPtr expression() {
    const Nested level(this);
    ExprPtr e = or_expr();
    while (accept_name("if")) {
      auto c = make(Expr::Kind::Cond, e->line);
      c->args.push_back(or_expr());
      c->args.push_back(std::move(e));
      c->args.push_back(accept_name("else") ? expression() : nullptr);
      e = std::move(c);
    }
    if (higher_than(*e, kMaxTreeHeight))
      fail("expression more than " + std::to_string(kMaxTreeHeight) + " operations deep");
    return e;
  }

  ExprPtr binary(ExprPtr l, const std::string& op, ExprPtr r) {
    auto b = make(Expr::Kind::Binary, l->line, op);
    b->args.push_back(std::move(l));
    b->args.push_back(std::move(r));
    return b;
  }

  ExprPtr or_expr() {
    ExprPtr e = and_expr();
    while (accept_name("or")) e = binary(std::move(e), "or", and_expr());
    return e;
  }
  ExprPtr and_expr() {
    ExprPtr e = not_expr();
    while (accept_name("and")) e = binary(std::move(e), "and", not_expr());
    return e;
  }
  ExprPtr not_expr() {
    if (!is_name("not")) return compare();
    const Nested level(this);
    auto u = make(Expr::Kind::Unary, next().line, "not");
    u->args.push_back(not_expr());
    return u;
  }
  ExprPtr compare() {
    ExprPtr e = add();
    for (;;) {
      std::string op;
      if (peek().kind == K::Op && (peek().text == "==" || peek().text == "!=" || peek().text == "<" ||
                                   peek().text == "<=" || peek().text == ">" || peek().text == ">=")) {
        op = next().text;
      } else if (accept_name("in")) {
        op = "in";
      } else if (is_name("not") && is_name("in", 1)) {
        p_ += 2;
        op = "not in";
      } else {
        return e;
      }
      e = binary(std::move(e), op, add());
    }
  }
  ExprPtr add() {
    ExprPtr e = concat();
    while (is_op("+") || is_op("-")) {
      const std::string op = next().text;
      e = binary(std::move(e), op, concat());
    }
    return e;
  }
  ExprPtr concat() {
    ExprPtr e = mul();
    while (accept_op("~")) e = binary(std::move(e), "~", mul());
    return e;
  }
  ExprPtr mul() {
    ExprPtr e = pow();
    while (is_op("*") || is_op("/") || is_op("//") || is_op("%")) {
      const std::string op = next().text;
      e = binary(std::move(e), op, pow());
    }
    return e;
  }
  ExprPtr pow() {
    ExprPtr e = unary(true);
    while (accept_op("**")) e = binary(std::move(e), "**", unary(true));
    return e;
  }
  ExprPtr unary(bool with_filter) {
    ExprPtr e;
    if (is_op("-") || is_op("+")) {
      const Nested level(this);
      e = make(Expr::Kind::Unary, peek().line, next().text);
      e->args.push_back(unary(false));
    } else {
      e = primary();
    }
    e = postfix(std::move(e));
    return with_filter ? filters_and_tests(std::move(e)) : std::move(e);
  }

  ExprPtr primary() {
    const Token& tk = next();
    auto lit = [&](Value v) {
      auto e = make(Expr::Kind::Literal, tk.line);
      e->value = std::move(v);
      return e;
    };
    switch (tk.kind) {
      case K::String: {
        std::string s = tk.text;
        while (peek().kind == K::String) s += next().text;  // adjacent literals concatenate
        return lit(Value::string(s));
      }
      case K::Int: return lit(Value::integer(tk.ival));
      case K::Float: return lit(Value::number(tk.fval));
      case K::Name:
        if (tk.text == "true" || tk.text == "True") return lit(Value::boolean(true));
        if (tk.text == "false" || tk.text == "False") return lit(Value::boolean(false));
        if (tk.text == "none" || tk.text == "None") return lit(Value::none());
        return make(Expr::Kind::Name, tk.line, tk.text);
      case K::Op:
        if (tk.text == "(") {
          ExprPtr e = expression();
          if (is_op(",")) {  // a tuple: evaluated as a list
            auto l = make(Expr::Kind::List, tk.line);
            l->args.push_back(std::move(e));
            while (accept_op(",") && !is_op(")")) l->args.push_back(expression());
            e = std::move(l);
          }
          expect_op(")");
          return e;
        }
        if (tk.text == "[") {
          auto l = make(Expr::Kind::List, tk.line);
          while (!accept_op("]")) {
            if (!l->args.empty()) expect_op(",");
            if (accept_op("]")) break;
            l->args.push_back(expression());
          }
          return l;
        }
        if (tk.text == "{") {
          auto d = make(Expr::Kind::Dict, tk.line);
          while (!accept_op("}")) {
            if (!d->args.empty()) expect_op(",");
            if (accept_op("}")) break;
            d->args.push_back(expression());
            expect_op(":");
            d->args.push_back(expression());
          }
          return d;
        }
        break;
      default: break;
    }
    throw error_at(tk.line, "unexpected " + describe(tk) + " in expression");
  }

  // Arguments after '(' up to ')': positional first, then name=value.
  void call_args(Expr* e) {
    while (!accept_op(")")) {
      if (peek().kind == K::Name && is_op("=", 1)) {
        std::string key = next().text;
        ++p_;
        e->kwargs.emplace_back(std::move(key), expression());
      } else {
        if (!e->kwargs.empty()) fail("positional argument after keyword argument");
        e->args.push_back(expression());
      }
      if (!is_op(")")) expect_op(",");
    }
  }

  ExprPtr postfix(ExprPtr e) {
    for (;;) {
      if (accept_op(".")) {
        auto a = make(Expr::Kind::Attr, e->line, expect_name());
        a->args.push_back(std::move(e));
        e = std::move(a);
      } else if (accept_op("[")) {
        e = subscript(std::move(e));
      } else if (accept_op("(")) {
        auto c = make(Expr::Kind::Call, e->line);
        c->args.push_back(std::move(e));
        call_args(c.get());
        e = std::move(c);
      } else {
        return e;
      }
    }
  }

  ExprPtr subscript(ExprPtr obj) {
    ExprPtr parts[3];
    int n = 0;
    for (;;) {
      if (!is_op(":") && !is_op("]")) parts[n] = expression();
      if (accept_op("]")) break;
      expect_op(":");
      if (++n > 2) fail("too many ':' in slice");
    }
    if (n == 0) {
      if (!parts[0]) fail("expected an expression inside '[]'");
      auto i = make(Expr::Kind::Index, obj->line);
      i->args.push_back(std::move(obj));
      i->args.push_back(std::move(parts[0]));
      return i;
    }
    auto s = make(Expr::Kind::Slice, obj->line);
    s->args.push_back(std::move(obj));
    for (auto& p : parts) s->args.push_back(std::move(p));
    return s;
  }

  ExprPtr filters_and_tests(ExprPtr e) {
    for (;;) {
      if (accept_op("|")) {
        const int line = peek().line;
        const std::string name = expect_name();
        if (!is_filter(name)) throw error_at(line, "unsupported filter '" + name + "'");
        auto f = make(Expr::Kind::Filter, line, name);
        f->args.push_back(std::move(e));
        if (accept_op("(")) call_args(f.get());
        e = postfix(std::move(f));
      } else if (accept_name("is")) {
        const int line = peek().line;
        const bool negated = accept_name("not");
        std::string name = expect_name();
        if (!is_test(name)) throw error_at(line, "unsupported test '" + name + "'");
        auto t = make(Expr::Kind::Test, line, std::move(name));
        t->negated = negated;
        t->args.push_back(std::move(e));
        if (accept_op("(")) {
          call_args(t.get());
        } else if (peek().kind == K::String || peek().kind == K::Int || peek().kind == K::Float ||
                   (peek().kind == K::Name && !is_name("and") && !is_name("or") && !is_name("if") &&
                    !is_name("else") && !is_name("in") && !is_name("is") && !is_name("not"))) {
          t->args.push_back(primary());  // `is divisibleby 3`, `is sameas none`
        }
        e = std::move(t);
      } else {
        return e;
      }
    }
  }

  const std::vector<Token>& t_;
  size_t p_ = 0;
};

}  // namespace

Body parse(const std::vector<Token>& tokens) { return Parser(tokens).run(); }

}  // namespace saguaro::chat
