//===- Serve.h - `saguaro serve`: an OpenAI-compatible server over a bundle ------------===//
#ifndef SAGUARO_COMPILER_DRIVER_SERVE_H
#define SAGUARO_COMPILER_DRIVER_SERVE_H

#include "compiler/driver/CompletionJson.h"
#include "saguaro/handoff/chat_server.h"
#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>
#include <string>

namespace saguaro {

struct ServeOptions {
  std::string bundle;
  std::string modelId;            // the "model" name clients see
  std::string host = "127.0.0.1"; // no TLS: loopback unless told otherwise
  int port = 8080;                // 0: any free port (printed)
  std::string threads = "0";
  std::string apiKey;             // what clients must send as Authorization: Bearer KEY; empty: no check
  SessionOptions options;           // readSessionOptions()
  handoff::ChatServerLimits limits; // --queue, --request-timeout; the rest fixed (docs/security.md)
};

/// The key `saguaro serve` requires: the first line of `file` (trailing blanks dropped) when one is named, else
/// $SAGUARO_SERVE_API_KEY, else none (""). A file that cannot be read or is empty, or a key that cannot travel as
/// one header value, is an error naming where it came from (never the key).
llvm::Expected<std::string> serveApiKey(const std::string &file);

/// Serves POST /v1/chat/completions and GET /v1/models until killed; returns the exit code on failure.
int runServe(const ServeOptions &options);

} // namespace saguaro

#endif // SAGUARO_COMPILER_DRIVER_SERVE_H
