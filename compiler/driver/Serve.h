//===- Serve.h - `saguaro serve`: an OpenAI-compatible server over a bundle ------------===//
#ifndef SAGUARO_COMPILER_DRIVER_SERVE_H
#define SAGUARO_COMPILER_DRIVER_SERVE_H

#include <string>

namespace saguaro {

struct ServeOptions {
  std::string bundle;
  std::string modelId;            // the "model" name clients see
  std::string host = "127.0.0.1"; // no authentication, no TLS: loopback unless told otherwise
  int port = 8080;                // 0: any free port (printed)
  std::string threads = "0";
};

/// Serves POST /v1/chat/completions and GET /v1/models until killed; returns the exit code on failure.
int runServe(const ServeOptions &options);

} // namespace saguaro

#endif // SAGUARO_COMPILER_DRIVER_SERVE_H
