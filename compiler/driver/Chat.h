//===- Chat.h - `saguaro chat`: an interactive conversation with a bundle --------------===//
#ifndef SAGUARO_COMPILER_DRIVER_CHAT_H
#define SAGUARO_COMPILER_DRIVER_CHAT_H

#include "compiler/driver/CompletionJson.h"

#include <string>

namespace saguaro {

struct ChatOptions {
  std::string bundle;     // a built or buildable bundle directory
  std::string name;       // what the user named: the model or bundle directory
  SessionOptions options; // generation options and the hand-off policy (docs/handoff.md), for every reply
  std::string system;     // the first system message; may be empty
  std::string threads = "0";
};

/// Reads messages and commands from standard input, streams the replies to standard output; returns the exit code
/// (0 at the end of input or /exit; 1 with a one-line error when the session cannot start).
int runChat(const ChatOptions &options);

} // namespace saguaro

#endif // SAGUARO_COMPILER_DRIVER_CHAT_H
