// The `math` built-in tool's language: an arithmetic expression evaluated exactly on rationals (rational.h).
//   expr   := term (('+' | '-') term)*
//   term   := unary (('*' | '/' | 'x' | U+00D7 | U+00F7 | ':') unary)*
//   unary  := ('-' | '+') unary | '(' expr ')' | number
//   number := decimal digits with an optional '.' (fractions are written with '/': 3/4)
// Spaces anywhere between tokens; U+2212 is a minus. Nesting is bounded so untrusted input cannot exhaust the stack.
#pragma once

#include <string>

#include "rational.h"

namespace saguaro {

/// The exact value of `expr`; false + a one-line reason (syntax error with its offset, division by zero, overflow).
bool evaluate_expression(const std::string& expr, Rational* out, std::string* err);

}  // namespace saguaro
