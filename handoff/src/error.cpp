#include "saguaro/handoff/error.h"

#include "saguaro/handoff/redact.h"

namespace saguaro::handoff {

// Redacting here means no throw site can leak a key, whatever text it composed.
HandoffError::HandoffError(const std::string& message) : std::runtime_error(redact(message)) {}

}  // namespace saguaro::handoff
