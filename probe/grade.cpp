//===- grade.cpp - The task suite's grading rule ----------------------------------------===//
#include "probe/grade.h"

#include <algorithm>

namespace saguaro::probe {

namespace {
constexpr std::string_view kWhitespace = " \t\n\r\v\f";
constexpr std::string_view kWorkedSeparator = ", so ";
} // namespace

std::string_view extract_answer(std::string_view generated) {
  std::string_view a = generated.substr(0, generated.find('\n'));
  if (size_t so = a.rfind(kWorkedSeparator); so != std::string_view::npos)
    a.remove_prefix(so + kWorkedSeparator.size());
  size_t first = a.find_first_not_of(kWhitespace);
  if (first == std::string_view::npos)
    return {};
  return a.substr(first, a.find_last_not_of(kWhitespace) + 1 - first);
}

bool is_right(std::string_view generated, const std::vector<std::string> &accept) {
  std::string_view a = extract_answer(generated);
  return std::find(accept.begin(), accept.end(), a) != accept.end();
}

} // namespace saguaro::probe
