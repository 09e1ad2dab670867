//===- JsonArgument.h - a command-line flag that takes JSON text or a JSON file ---===//
#ifndef SAGUARO_COMPILER_DRIVER_JSONARGUMENT_H
#define SAGUARO_COMPILER_DRIVER_JSONARGUMENT_H

#include <nlohmann/json.hpp>
#include <string>

namespace saguaro {

/// `text` is JSON, or the path of a file holding it; `what` names the flag in errors. False with a one-line
/// `error` (naming the file, or the flag) when it does not parse.
bool readJsonArgument(const std::string &text, const std::string &what, nlohmann::json &out, std::string &error);

/// Splits completion options into those the bundle program applies to the local answer
/// (is_local_completion_option) and the rest, the cloud hand-off policy (docs/handoff.md).
void splitCompletionOptions(const nlohmann::json &options, nlohmann::json &local, nlohmann::json &policy);

} // namespace saguaro

#endif // SAGUARO_COMPILER_DRIVER_JSONARGUMENT_H
