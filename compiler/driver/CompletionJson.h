//===- CompletionJson.h - the JSON that `saguaro complete` and `saguaro serve` share -===//
#ifndef SAGUARO_COMPILER_DRIVER_COMPLETIONJSON_H
#define SAGUARO_COMPILER_DRIVER_COMPLETIONJSON_H

#include "saguaro/handoff/hybrid_complete.h"

#include <nlohmann/json.hpp>
#include <string>

namespace saguaro {

/// `text` is JSON, or the path of a file holding it; `what` names the flag in errors. False with a one-line
/// `error` (naming the file, or the flag) when it does not parse.
bool readJsonArgument(const std::string &text, const std::string &what, nlohmann::json &out, std::string &error);

/// Splits completion options into those the bundle program applies to the local answer
/// (is_local_completion_option) and the rest, the cloud hand-off policy (docs/handoff.md).
void splitCompletionOptions(const nlohmann::json &options, nlohmann::json &local, nlohmann::json &policy);

/// The local answer in the bundle program's saguaro_complete response: its text and confidence (0 when absent).
handoff::LocalAnswer localAnswerOf(const nlohmann::json &response);

} // namespace saguaro

#endif // SAGUARO_COMPILER_DRIVER_COMPLETIONJSON_H
