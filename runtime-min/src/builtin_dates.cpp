// The `dates` built-in tool: days added to a date, a date's weekday, the days between two dates, on the proleptic
// Gregorian calendar for years 1..9999 (day counts by Howard Hinnant's days_from_civil / civil_from_days).
#include <cstdio>
#include <nlohmann/json.hpp>

#include "builtin_tool_kinds.h"

namespace saguaro {
namespace {

struct Date {
  int64_t y;
  unsigned m, d;
};

int64_t days_from_civil(Date t) {
  const int64_t y = t.y - (t.m <= 2);
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (t.m + (t.m > 2 ? -3 : 9)) + 2) / 5 + t.d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;  // days since 1970-01-01
}

Date civil_from_days(int64_t z) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const unsigned d = unsigned(doy - (153 * mp + 2) / 5 + 1);
  const unsigned m = unsigned(mp < 10 ? mp + 3 : mp - 9);
  return {yoe + era * 400 + (m <= 2), m, d};
}

const int64_t kFirstDay = days_from_civil({1, 1, 1});
const int64_t kLastDay = days_from_civil({9999, 12, 31});

unsigned days_in_month(int64_t y, unsigned m) {
  static const unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : kDays[m - 1];
}

// "YYYY-MM-DD" -> days since 1970-01-01.
bool parse_date(const std::string& s, int64_t* days, std::string* err) {
  bool shape = s.size() == 10 && s[4] == '-' && s[7] == '-';
  for (size_t i = 0; shape && i < s.size(); ++i) shape = i == 4 || i == 7 || (s[i] >= '0' && s[i] <= '9');
  if (!shape) return *err = "\"" + s + "\" is not a YYYY-MM-DD date", false;
  const Date t{std::stoll(s.substr(0, 4)), unsigned(std::stoul(s.substr(5, 2))), unsigned(std::stoul(s.substr(8, 2)))};
  if (t.y < 1 || t.m < 1 || t.m > 12 || t.d < 1 || t.d > days_in_month(t.y, t.m))
    return *err = "\"" + s + "\" is not a date between 0001-01-01 and 9999-12-31", false;
  *days = days_from_civil(t);
  return true;
}

std::string format_date(int64_t days) {
  const Date t = civil_from_days(days);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02u", static_cast<long long>(t.y), t.m, t.d);
  return buf;
}

bool date_argument(const nlohmann::json& args, const char* key, int64_t* days, std::string* err) {
  std::string text;
  return string_argument(args, key, &text, err) && parse_date(text, days, err);
}

}  // namespace

bool run_dates_tool(const nlohmann::json& args, std::string* out) {
  std::string op;
  int64_t day;
  if (!string_argument(args, "operation", &op, out) || !date_argument(args, "date", &day, out)) return false;
  if (op == "weekday") {
    static const char* const kNames[] = {"Thursday", "Friday", "Saturday", "Sunday", "Monday", "Tuesday", "Wednesday"};
    return *out = kNames[((day % 7) + 7) % 7], true;  // 1970-01-01 was a Thursday
  }
  if (op == "days_between") {
    int64_t to;
    if (!date_argument(args, "to", &to, out)) return false;
    return *out = std::to_string(to - day), true;
  }
  if (op == "add_days") {
    const auto it = args.find("days");
    if (it == args.end() || !it->is_number_integer()) return *out = "\"days\" must be an integer", false;
    // Any result outside the calendar's range is refused before adding, so the sum cannot overflow.
    const int64_t n = it->is_number_unsigned() && it->get<uint64_t>() > uint64_t(INT64_MAX) ? INT64_MAX
                                                                                          : it->get<int64_t>();
    if (n > kLastDay - day || n < kFirstDay - day) return *out = "the result is outside 0001-01-01..9999-12-31", false;
    return *out = format_date(day + n), true;
  }
  return *out = "unknown operation \"" + op + "\" (add_days, weekday or days_between)", false;
}

}  // namespace saguaro
