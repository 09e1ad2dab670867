// Keeps API keys out of every string the library lets go of: errors, logs, results and dry-run records.
#pragma once

#include <string>

namespace saguaro::handoff {

// Remembers a secret for the life of the process so every later redact() removes it. Keys shorter than 4
// characters are not registered: replacing them would mangle ordinary text and they protect nothing anyway.
void register_secret(const std::string& secret);

// Returns text with every registered secret replaced by "[REDACTED]", and with the values of credential-shaped
// fragments ("Bearer X", "x-api-key: X", "x-goog-api-key: X", "key=X") and of key-shaped tokens ("sk-...",
// "AIza...", 12+ characters) replaced too, so a key the process never
// registered (e.g. one a server echoes back in an altered header) is still not shown.
std::string redact(std::string text);

// Only the registered secrets; for text that must otherwise stay byte-exact, such as a successful model answer.
std::string redact_known_secrets(std::string text);

}  // namespace saguaro::handoff
