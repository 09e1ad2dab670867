// The `math` built-in tool: an expression evaluated exactly (math_expression.h), printed by format_rational.
#include <nlohmann/json.hpp>

#include "builtin_tool_kinds.h"
#include "math_expression.h"

namespace saguaro {

bool run_math_tool(const nlohmann::json& args, std::string* out) {
  std::string expr;
  if (!string_argument(args, "expression", &expr, out)) return false;
  Rational value;
  if (!evaluate_expression(expr, &value, out)) return false;
  *out = format_rational(value);
  return true;
}

}  // namespace saguaro
