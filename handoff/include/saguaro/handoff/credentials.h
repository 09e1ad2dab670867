// Where API keys come from, and how `saguaro auth` stores one. Keys are registered for redaction as soon as they
// are read.
#pragma once

#include <optional>
#include <string>

#include "saguaro/handoff/environment.h"
#include "saguaro/handoff/provider.h"

namespace saguaro::handoff {

struct ApiKey {
  std::string value;
  std::string source;  // "SAGUARO_CLOUD_API_KEY", "OPENAI_API_KEY", ... or the credentials file path
};

// <config dir>/credentials.json
std::string credentials_file_path(const EnvLookup& env);

// SAGUARO_CLOUD_API_KEY, else OPENAI_API_KEY / ANTHROPIC_API_KEY / GEMINI_API_KEY, else the credentials file.
// Returns nullopt when none has a key. Throws HandoffError (naming the file) when the credentials file is
// unreadable, malformed, or readable by group or others.
std::optional<ApiKey> resolve_api_key(ProviderKind provider, const EnvLookup& env = process_environment());

// Writes the key into the credentials file, created 0600 from the first byte and replaced atomically (rename), so
// no reader ever sees a partial or world-readable file. Refuses (HandoffError) when the existing file's mode is
// looser than 0600 or it is not a regular file owned by the user.
void store_api_key(const std::string& provider, const std::string& key,
                   const EnvLookup& env = process_environment());

}  // namespace saguaro::handoff
