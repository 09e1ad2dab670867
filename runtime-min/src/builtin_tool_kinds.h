// The built-in tools' own functions, dispatched by builtin_tools.cpp: each reads its arguments object and writes
// the result or the reason it cannot answer (without the tool's name; the caller prefixes it).
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace saguaro {

/// {"expression": "48 + 57"} -> "105" (math_expression.h's language, exact).
bool run_math_tool(const nlohmann::json& args, std::string* out);
/// {"operation": "add_days", "date": "2026-11-27", "days": 10} -> "2026-12-07"; "weekday" -> "Friday";
/// "days_between" with "date" and "to" -> the signed count of days from date to to.
bool run_dates_tool(const nlohmann::json& args, std::string* out);
/// {"value": "3.5", "from": "km", "to": "mi"} -> the converted value, exact where it is rational.
bool run_units_tool(const nlohmann::json& args, std::string* out);

/// args[key] as a string; false + "\"key\" must be a string" otherwise.
bool string_argument(const nlohmann::json& args, const char* key, std::string* value, std::string* err);

}  // namespace saguaro
