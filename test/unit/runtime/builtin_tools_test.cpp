// The built-in tools (saguaro/builtin_tools.h): exact results, checked against Python's fractions and datetime
// (values computed there by hand), and one tool error per kind of bad argument.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "math_expression.h"
#include "saguaro/builtin_tools.h"

namespace saguaro {
namespace {

std::string run(const std::string& tool, const nlohmann::json& args, bool expect_ok = true) {
  std::string out;
  EXPECT_EQ(run_builtin_tool(tool, args.dump(), &out), expect_ok) << tool << " " << args.dump() << " -> " << out;
  return out;
}

std::string math(const std::string& expr, bool expect_ok = true) { return run("math", {{"expression", expr}}, expect_ok); }

TEST(BuiltinMath, ExactRationals) {
  EXPECT_EQ(math("48 + 57"), "105");
  EXPECT_EQ(math("1/3 + 1/6"), "0.5");
  EXPECT_EQ(math("2/3 * -0.75"), "-0.5");
  EXPECT_EQ(math("1/3 - 1/2"), "-1/6 (about -0.1666666667)");
  EXPECT_EQ(math("(1 + 2) * (3 - 5) / 4"), "-1.5");
  EXPECT_EQ(math("7 \xC3\xB7 8"), "0.875");            // U+00F7
  EXPECT_EQ(math("3 \xC3\x97 4 \xE2\x88\x92 2"), "10");  // U+00D7, U+2212
  EXPECT_EQ(math("-(-(2))"), "2");
  EXPECT_EQ(math("0.1 + 0.2"), "0.3");  // exact: no binary floating point
  EXPECT_EQ(math("1/7"), "1/7 (about 0.1428571429)");
  EXPECT_EQ(math("9223372036854775807"), "9223372036854775807");
  EXPECT_EQ(math("-9223372036854775807 - 0"), "-9223372036854775807");
  EXPECT_EQ(math("1/9223372036854775807 * 9223372036854775807"), "1");
}

TEST(BuiltinMath, ErrorsAreToolErrors) {
  EXPECT_EQ(math("1 / (2 - 2)", false), "math: division by zero");
  EXPECT_EQ(math("9223372036854775807 + 1", false), "math: overflow: the exact result does not fit in 64-bit integers");
  EXPECT_EQ(math("99999999999999999999", false).rfind("math: overflow", 0), 0u);
  EXPECT_EQ(math("3 +", false), "math: the expression ends where a number was expected at offset 3");
  EXPECT_EQ(math("(1 + 2", false), "math: ')' expected at offset 6");
  EXPECT_EQ(math("2 ^ 3", false), "math: unexpected '^' at offset 2");
  EXPECT_EQ(math(std::string(100, '('), false), "math: nesting deeper than 64 at offset 64");
  EXPECT_EQ(math(std::string(5000, '1'), false), "math: the expression is longer than 4096 bytes");
  EXPECT_EQ(run("math", {{"expr", "1"}}, false), "math: \"expression\" must be a string");
  EXPECT_EQ(run("math", {{"expression", 12}}, false), "math: \"expression\" must be a string");
  std::string out;
  EXPECT_FALSE(run_builtin_tool("math", "[1, 2", &out));
  EXPECT_EQ(out, "math: the arguments are not a JSON object");
  EXPECT_FALSE(run_builtin_tool("weather", "{}", &out));
  EXPECT_EQ(out, "weather: not a built-in tool");
}

TEST(BuiltinDates, Arithmetic) {
  EXPECT_EQ(run("dates", {{"operation", "add_days"}, {"date", "2026-11-27"}, {"days", 10}}), "2026-12-07");
  EXPECT_EQ(run("dates", {{"operation", "add_days"}, {"date", "2000-02-29"}, {"days", -36524}}), "1900-03-01");
  EXPECT_EQ(run("dates", {{"operation", "weekday"}, {"date", "2026-11-27"}}), "Friday");
  EXPECT_EQ(run("dates", {{"operation", "weekday"}, {"date", "0001-01-01"}}), "Monday");
  EXPECT_EQ(run("dates", {{"operation", "days_between"}, {"date", "2024-02-28"}, {"to", "2027-03-01"}}), "1097");
  EXPECT_EQ(run("dates", {{"operation", "days_between"}, {"date", "2027-03-01"}, {"to", "2024-02-28"}}), "-1097");
}

TEST(BuiltinDates, BadArguments) {
  EXPECT_EQ(run("dates", {{"operation", "weekday"}, {"date", "2023-02-29"}}, false),
            "dates: \"2023-02-29\" is not a date between 0001-01-01 and 9999-12-31");
  EXPECT_EQ(run("dates", {{"operation", "weekday"}, {"date", "27.11.2026"}}, false),
            "dates: \"27.11.2026\" is not a YYYY-MM-DD date");
  EXPECT_EQ(run("dates", {{"operation", "add_days"}, {"date", "9999-12-31"}, {"days", 1}}, false),
            "dates: the result is outside 0001-01-01..9999-12-31");
  EXPECT_EQ(run("dates", {{"operation", "add_days"}, {"date", "2026-01-01"}, {"days", INT64_MIN}}, false),
            "dates: the result is outside 0001-01-01..9999-12-31");
  EXPECT_EQ(run("dates", {{"operation", "add_days"}, {"date", "2026-01-01"}, {"days", UINT64_MAX}}, false),
            "dates: the result is outside 0001-01-01..9999-12-31");
  EXPECT_EQ(run("dates", {{"operation", "add_days"}, {"date", "2026-01-01"}, {"days", 1.5}}, false),
            "dates: \"days\" must be an integer");
  EXPECT_EQ(run("dates", {{"operation", "age"}, {"date", "2026-01-01"}}, false),
            "dates: unknown operation \"age\" (add_days, weekday or days_between)");
  EXPECT_EQ(run("dates", {{"operation", "days_between"}, {"date", "2026-01-01"}}, false),
            "dates: \"to\" must be a string");
}

TEST(BuiltinUnits, Conversions) {
  EXPECT_EQ(run("units", {{"value", "5"}, {"from", "km"}, {"to", "mi"}}), "78125/25146 (about 3.106855961) mi");
  EXPECT_EQ(run("units", {{"value", 12}, {"from", "in"}, {"to", "ft"}}), "1 ft");
  EXPECT_EQ(run("units", {{"value", 1}, {"from", "lb"}, {"to", "g"}}), "453.59237 g");
  EXPECT_EQ(run("units", {{"value", "98.6"}, {"from", "F"}, {"to", "C"}}), "37 C");
  EXPECT_EQ(run("units", {{"value", 98.6}, {"from", "F"}, {"to", "K"}}), "310.15 K");
  EXPECT_EQ(run("units", {{"value", "-40"}, {"from", "C"}, {"to", "F"}}), "-40 F");
  EXPECT_EQ(run("units", {{"value", "1.5"}, {"from", "h"}, {"to", "min"}}), "90 min");
}

TEST(BuiltinUnits, BadArguments) {
  EXPECT_EQ(run("units", {{"value", "1"}, {"from", "kg"}, {"to", "m"}}, false),
            "units: cannot convert mass (kg) to length (m)");
  EXPECT_EQ(run("units", {{"value", "1"}, {"from", "parsec"}, {"to", "m"}}, false), "units: unknown unit \"parsec\"");
  EXPECT_EQ(run("units", {{"value", "a lot"}, {"from", "m"}, {"to", "km"}}, false),
            "units: \"value\" a lot: a number was expected at offset 0");
  EXPECT_EQ(run("units", {{"value", 1e300}, {"from", "m"}, {"to", "km"}}, false),
            "units: \"value\" 1e+300: unexpected 'e' at offset 1");
  EXPECT_EQ(run("units", {{"from", "m"}, {"to", "km"}}, false), "units: \"value\" must be a string");
}

TEST(BuiltinTools, DeclarationsNameTheirTools) {
  ASSERT_EQ(builtin_tool_names(), (std::vector<std::string>{"math", "dates", "units"}));
  for (const std::string& name : builtin_tool_names()) {
    const nlohmann::json decl = nlohmann::json::parse(builtin_tool_declaration(name));
    EXPECT_EQ(decl["function"]["name"], name);
    EXPECT_EQ(decl["function"]["parameters"]["type"], "object");
  }
  EXPECT_EQ(builtin_tool_declaration("weather"), "");
}

}  // namespace
}  // namespace saguaro
