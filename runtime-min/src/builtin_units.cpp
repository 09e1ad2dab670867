// The `units` built-in tool: conversions of length, mass, time and temperature. Every factor is an exact decimal
// (the international inch, foot, yard, mile and pound are defined in metres and kilograms), so a conversion is
// exact on rationals; temperatures convert through kelvin (C + 273.15, (F - 32) * 5/9 + 273.15).
#include <nlohmann/json.hpp>

#include "builtin_tool_kinds.h"
#include "math_expression.h"

namespace saguaro {
namespace {

struct Unit {
  const char* name;
  const char* dimension;
  const char* to_base;  // one unit in the dimension's base unit (m, kg, s), an exact decimal; temperatures: ""
};

const Unit kUnits[] = {
    {"m", "length", "1"},       {"km", "length", "1000"},        {"cm", "length", "0.01"},
    {"mm", "length", "0.001"},  {"in", "length", "0.0254"},      {"ft", "length", "0.3048"},
    {"yd", "length", "0.9144"}, {"mi", "length", "1609.344"},    {"kg", "mass", "1"},
    {"g", "mass", "0.001"},     {"mg", "mass", "0.000001"},      {"t", "mass", "1000"},
    {"lb", "mass", "0.45359237"}, {"oz", "mass", "0.028349523125"}, {"s", "time", "1"},
    {"ms", "time", "0.001"},    {"min", "time", "60"},           {"h", "time", "3600"},
    {"day", "time", "86400"},   {"week", "time", "604800"},      {"C", "temperature", ""},
    {"F", "temperature", ""},   {"K", "temperature", ""},
};

const Unit* find_unit(const std::string& name) {
  for (const Unit& u : kUnits)
    if (name == u.name) return &u;
  return nullptr;
}

Rational exact(const char* decimal) {
  Rational r;
  std::string err;
  evaluate_expression(decimal, &r, &err);  // the table's own constants: always valid
  return r;
}

// Temperature v in unit u -> kelvin (to_kelvin) or kelvin -> unit u.
bool temperature(const Unit& u, Rational v, bool to_kelvin, Rational* out, std::string* err) {
  const Rational offset = exact("273.15"), nine_fifths{9, 5}, f32{32, 1};
  if (u.name[0] == 'K') return *out = v, true;
  if (u.name[0] == 'C')
    return to_kelvin ? rational_add(v, offset, out, err) : rational_sub(v, offset, out, err);
  Rational t;
  if (to_kelvin)
    return rational_sub(v, f32, &t, err) && rational_div(t, nine_fifths, &t, err) && rational_add(t, offset, out, err);
  return rational_sub(v, offset, &t, err) && rational_mul(t, nine_fifths, &t, err) && rational_add(t, f32, out, err);
}

}  // namespace

bool run_units_tool(const nlohmann::json& args, std::string* out) {
  std::string value_text, from_name, to_name;
  const auto value = args.find("value");
  if (value != args.end() && value->is_number()) value_text = value->dump();  // shortest decimal of a JSON number
  else if (!string_argument(args, "value", &value_text, out)) return false;
  if (!string_argument(args, "from", &from_name, out) || !string_argument(args, "to", &to_name, out)) return false;
  const Unit* from = find_unit(from_name);
  const Unit* to = find_unit(to_name);
  if (!from || !to) return *out = "unknown unit \"" + (from ? to_name : from_name) + "\"", false;
  if (std::string(from->dimension) != to->dimension)
    return *out = "cannot convert " + std::string(from->dimension) + " (" + from_name + ") to " + to->dimension + " (" +
                  to_name + ")", false;
  Rational v, r;
  std::string why;
  if (!evaluate_expression(value_text, &v, &why)) return *out = "\"value\" " + value_text + ": " + why, false;
  const bool ok = std::string(from->dimension) == "temperature"
                      ? temperature(*from, v, true, &r, out) && temperature(*to, r, false, &r, out)
                      : rational_mul(v, exact(from->to_base), &r, out) && rational_div(r, exact(to->to_base), &r, out);
  if (!ok) return false;
  *out = format_rational(r) + " " + to_name;
  return true;
}

}  // namespace saguaro
