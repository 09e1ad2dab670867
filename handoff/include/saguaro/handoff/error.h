// The one exception type of the handoff library. Its text is a single line, already redacted, and names the file
// when a file is the problem, so callers can show it to the user as is.
#pragma once

#include <stdexcept>
#include <string>

namespace saguaro::handoff {

struct HandoffError : std::runtime_error {
  explicit HandoffError(const std::string& message);
};

}  // namespace saguaro::handoff
