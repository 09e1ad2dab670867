//===- Serve.h - `saguaro serve`: an OpenAI-compatible server over a bundle ------------===//
#ifndef SAGUARO_COMPILER_DRIVER_SERVE_H
#define SAGUARO_COMPILER_DRIVER_SERVE_H

#include "saguaro/handoff/chat_server.h"
#include "saguaro/handoff/options.h"
#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>
#include <string>

namespace saguaro {

/// `saguaro serve --options` read once (serveOptions): defaults of the local answer and the hand-off policy.
struct ServeCompletionOptions {
  nlohmann::json local = nlohmann::json::object();  // top_k, top_p, ...: under each request's own
  nlohmann::json policy = nlohmann::json::object(); // empty: local answers only
  handoff::HandoffOptions handoff;                  // the policy, parsed
};

struct ServeOptions {
  std::string bundle;
  std::string modelId;            // the "model" name clients see
  std::string host = "127.0.0.1"; // no TLS: loopback unless told otherwise
  int port = 8080;                // 0: any free port (printed)
  std::string threads = "0";
  std::string apiKey;             // what clients must send as Authorization: Bearer KEY; empty: no check
  ServeCompletionOptions options; // serveOptions()
  handoff::ChatServerLimits limits; // --queue, --request-timeout; the rest fixed (docs/security.md)
};

/// The key `saguaro serve` requires: the first line of `file` (trailing blanks dropped) when one is named, else
/// $SAGUARO_SERVE_API_KEY, else none (""). A file that cannot be read or is empty, or a key that cannot travel as
/// one header value, is an error naming where it came from (never the key).
llvm::Expected<std::string> serveApiKey(const std::string &file);

/// `saguaro serve --options JSON_OR_FILE` checked and read (empty without the flag): a JSON object of
/// saguaro_complete options (docs/handoff.md). Those the bundle program applies to the local answer are defaults
/// under each request's max_tokens and temperature; the rest are the cloud hand-off policy, which makes the server
/// answer as `saguaro complete` does. A bad option is a one-line error.
llvm::Expected<ServeCompletionOptions> serveOptions(const std::string &argument);

/// Serves POST /v1/chat/completions and GET /v1/models until killed; returns the exit code on failure.
int runServe(const ServeOptions &options);

} // namespace saguaro

#endif // SAGUARO_COMPILER_DRIVER_SERVE_H
