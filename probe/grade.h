//===- grade.h - The task suite's grading rule ------------------------------------------===//
#ifndef SAGUARO_PROBE_GRADE_H
#define SAGUARO_PROBE_GRADE_H

#include <string>
#include <string_view>
#include <vector>

namespace saguaro::probe {

/// The answer a generated text gives (docs/tasks.md, "Grading rule"; examples/tasks/grade.py is the
/// same rule in Python): the first line; if it holds ", so " (a worked answer: `24 + 14 is 38, so no`)
/// only what follows the last one; then without leading and trailing ASCII whitespace.
std::string_view extract_answer(std::string_view generated);

/// Whether `generated` answers right: its extracted answer equals one of `accept` exactly.
bool is_right(std::string_view generated, const std::vector<std::string> &accept);

} // namespace saguaro::probe

#endif // SAGUARO_PROBE_GRADE_H
