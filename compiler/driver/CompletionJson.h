//===- CompletionJson.h - the JSON that `saguaro complete`, `serve` and `chat` share --===//
#ifndef SAGUARO_COMPILER_DRIVER_COMPLETIONJSON_H
#define SAGUARO_COMPILER_DRIVER_COMPLETIONJSON_H

#include "saguaro/handoff/hybrid_complete.h"
#include "saguaro/handoff/options.h"
#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>
#include <string>

namespace saguaro {

/// `text` is JSON, or the path of a file holding it; `what` names the flag in errors. False with a one-line
/// `error` (naming the file, or the flag) when it does not parse.
bool readJsonArgument(const std::string &text, const std::string &what, nlohmann::json &out, std::string &error);

/// Splits completion options into those the bundle program applies to the local answer
/// (is_local_completion_option) and the rest, the cloud hand-off policy (docs/handoff.md).
void splitCompletionOptions(const nlohmann::json &options, nlohmann::json &local, nlohmann::json &policy);

/// The --options of a command that answers many requests (`saguaro serve`, `saguaro chat`), read once: defaults of
/// the local answer and the hand-off policy.
struct SessionOptions {
  nlohmann::json local = nlohmann::json::object();  // top_k, top_p, ...: under each request's own
  nlohmann::json policy = nlohmann::json::object(); // empty: local answers only
  handoff::HandoffOptions handoff;                  // the policy, parsed
};

/// `--options JSON_OR_FILE` checked and read (empty without the flag): a JSON object of saguaro_complete options
/// (docs/handoff.md), split into those the bundle program applies to the local answer and the cloud hand-off
/// policy. A bad option is a one-line error, reported before anything is compiled.
llvm::Expected<SessionOptions> readSessionOptions(const std::string &argument);

/// The local answer in the bundle program's saguaro_complete response: its text and confidence (0 when absent).
handoff::LocalAnswer localAnswerOf(const nlohmann::json &response);

} // namespace saguaro

#endif // SAGUARO_COMPILER_DRIVER_COMPLETIONJSON_H
