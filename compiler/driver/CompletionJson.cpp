//===- CompletionJson.cpp - the JSON that `saguaro complete`, `serve` and `chat` share ===//
#include "compiler/driver/CompletionJson.h"

#include "llvm/Support/FileSystem.h"
#include "saguaro/completion_options.h"

#include <fstream>
#include <sstream>

using nlohmann::json;

bool saguaro::readJsonArgument(const std::string &text, const std::string &what, json &out, std::string &error) {
  std::string body = text, source = what;
  if (llvm::sys::fs::is_regular_file(text)) {
    std::ifstream in(text);
    std::ostringstream s;
    s << in.rdbuf();
    body = s.str(), source = text;
  }
  out = json::parse(body, nullptr, false);
  if (out.is_discarded())
    return error = source + ": not JSON (pass JSON text or the path of a JSON file)", false;
  return true;
}

void saguaro::splitCompletionOptions(const json &options, json &local, json &policy) {
  local = json::object(), policy = json::object();
  for (const auto &[key, value] : options.items())
    (is_local_completion_option(key) ? local : policy)[key] = value;
}

saguaro::handoff::LocalAnswer saguaro::localAnswerOf(const json &response) {
  handoff::LocalAnswer answer;
  answer.text = response.value("response", "");
  answer.confidence = response["confidence"].is_number() ? response["confidence"].get<double>() : 0.0;
  return answer;
}

llvm::Expected<saguaro::SessionOptions> saguaro::readSessionOptions(const std::string &argument) {
  SessionOptions o;
  if (argument.empty())
    return o;
  try {
    json options;
    std::string error;
    if (!readJsonArgument(argument, "--options", options, error))
      return llvm::createStringError(error);
    if (!options.is_object())
      return llvm::createStringError("--options must be a JSON object");
    splitCompletionOptions(options, o.local, o.policy);
    o.handoff = handoff::parse_options(o.policy); // the policy's own one-line errors, before anything is compiled
    return o;
  } catch (const std::exception &e) {
    return llvm::createStringError(std::string("--options: ") + e.what());
  }
}
