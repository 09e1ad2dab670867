//===- Complete.h - `saguaro complete` (local answer + cloud handoff) and `saguaro auth` ===//
#ifndef SAGUARO_COMPILER_DRIVER_COMPLETE_H
#define SAGUARO_COMPILER_DRIVER_COMPLETE_H

#include <string>

namespace saguaro {

struct CompleteOptions {
  std::string bundle;   // a built or buildable bundle directory
  std::string messages; // OpenAI-style messages: JSON text or a file
  std::string options;  // generation and handoff options (docs/handoff.md): JSON text or a file; may be empty
  std::string tools;    // a file of OpenAI tools (a JSON array); may be empty
  std::string task;     // task tag selecting a route of options.routes
  std::string responseFormat; // options' "response_format" (docs/structured-output.md): JSON text or a file
  std::string threads = "0";
};

/// Prints the response JSON of the hybrid completion; returns the exit code (errors: one line on stderr).
int runComplete(const CompleteOptions &options);

/// Stores the provider's API key read from `keyFile` ("-": standard input) in the credentials file (0600).
int runAuth(const std::string &provider, const std::string &keyFile);

} // namespace saguaro

#endif // SAGUARO_COMPILER_DRIVER_COMPLETE_H
