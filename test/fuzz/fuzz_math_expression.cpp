// libFuzzer target: the `math` built-in tool's expression evaluator (runtime-min/src/math_expression.cpp) on
// untrusted text (a model writes it), and the same bytes as the JSON arguments of the built-in tool the first byte
// picks. A result is a reduced rational with a positive denominator; a refusal always says why.
#include <cstdlib>
#include <numeric>

#include "math_expression.h"
#include "saguaro/builtin_tools.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace saguaro;
  const std::string text(reinterpret_cast<const char*>(data), size);
  Rational r;
  std::string err;
  if (evaluate_expression(text, &r, &err)) {
    if (r.den <= 0 || std::gcd(r.num, r.den) != 1 || format_rational(r).empty()) __builtin_trap();
  } else if (err.empty()) {
    __builtin_trap();
  }
  if (size < 1) return 0;
  const std::vector<std::string>& names = builtin_tool_names();
  std::string result;
  run_builtin_tool(names[data[0] % names.size()], text.substr(1), &result);
  if (result.empty()) __builtin_trap();
  return 0;
}
