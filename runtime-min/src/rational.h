// Exact rationals on 64-bit integers for the built-in tools (builtin_tools.h): every operation checks for
// overflow and division by zero and reports it instead of wrapping, so a tool answers exactly or says why not.
#pragma once

#include <cstdint>
#include <string>

namespace saguaro {

/// num/den in lowest terms, den > 0.
struct Rational {
  int64_t num = 0;
  int64_t den = 1;
};

/// a op b into *out; false + "overflow: ..." or "division by zero" in *err.
bool rational_add(Rational a, Rational b, Rational* out, std::string* err);
bool rational_sub(Rational a, Rational b, Rational* out, std::string* err);
bool rational_mul(Rational a, Rational b, Rational* out, std::string* err);
bool rational_div(Rational a, Rational b, Rational* out, std::string* err);

/// Reads an unsigned decimal number ("42", "0.0254", ".5", "3.") from s at *pos, advancing *pos; false + err when
/// there is no digit or it does not fit.
bool parse_rational_decimal(const std::string& s, size_t* pos, Rational* out, std::string* err);

/// "105", "-0.25" (a denominator of only 2s and 5s: the exact decimal), else "1/3 (about 0.3333333333)".
std::string format_rational(Rational r);

}  // namespace saguaro
