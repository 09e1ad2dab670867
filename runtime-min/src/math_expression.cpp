// Recursive-descent evaluator of the `math` tool's expressions (math_expression.h).
#include "math_expression.h"

namespace saguaro {
namespace {

constexpr int kMaxDepth = 64;     // nested parentheses and unary signs
constexpr size_t kMaxLength = 4096;

class Parser {
 public:
  Parser(const std::string& s, std::string* err) : s_(s), err_(err) {}

  bool parse(Rational* out) {
    if (!expr(out, 0)) return false;
    skip_spaces();
    if (pos_ != s_.size()) return fail("unexpected '" + s_.substr(pos_, 1) + "'");
    return true;
  }

 private:
  bool fail(const std::string& why) { return *err_ = why + " at offset " + std::to_string(pos_), false; }

  void skip_spaces() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n')) ++pos_;
  }

  // Consumes one of `tokens` (ASCII characters or UTF-8 sequences) and returns its index, or -1.
  int take(std::initializer_list<const char*> tokens) {
    skip_spaces();
    int k = 0;
    for (const char* t : tokens) {
      const std::string tok(t);
      if (s_.compare(pos_, tok.size(), tok) == 0) return pos_ += tok.size(), k;
      ++k;
    }
    return -1;
  }

  bool expr(Rational* out, int depth) {
    if (!term(out, depth)) return false;
    for (int op; (op = take({"+", "-", "\xE2\x88\x92"})) >= 0;) {
      Rational rhs;
      if (!term(&rhs, depth)) return false;
      if (!(op == 0 ? rational_add(*out, rhs, out, err_) : rational_sub(*out, rhs, out, err_))) return false;
    }
    return true;
  }

  bool term(Rational* out, int depth) {
    if (!unary(out, depth)) return false;
    for (int op; (op = take({"*", "x", "\xC3\x97", "/", ":", "\xC3\xB7"})) >= 0;) {
      Rational rhs;
      if (!unary(&rhs, depth)) return false;
      if (!(op < 3 ? rational_mul(*out, rhs, out, err_) : rational_div(*out, rhs, out, err_))) return false;
    }
    return true;
  }

  bool unary(Rational* out, int depth) {
    if (depth >= kMaxDepth) return fail("nesting deeper than " + std::to_string(kMaxDepth));
    const int sign = take({"-", "\xE2\x88\x92", "+", "("});
    if (sign == 0 || sign == 1) {
      Rational inner;
      return unary(&inner, depth + 1) && rational_sub(Rational{}, inner, out, err_);
    }
    if (sign == 2) return unary(out, depth + 1);
    if (sign == 3) {
      if (!expr(out, depth + 1)) return false;
      if (take({")"}) != 0) return fail("')' expected");
      return true;
    }
    if (pos_ == s_.size()) return fail("the expression ends where a number was expected");
    return parse_rational_decimal(s_, &pos_, out, err_);
  }

  const std::string& s_;
  std::string* err_;
  size_t pos_ = 0;
};

}  // namespace

bool evaluate_expression(const std::string& expr, Rational* out, std::string* err) {
  if (expr.size() > kMaxLength) return *err = "the expression is longer than " + std::to_string(kMaxLength) + " bytes", false;
  return Parser(expr, err).parse(out);
}

}  // namespace saguaro
