// libFuzzer target: the options JSON of saguaro_complete as the cloud handoff reads it (handoff::parse_options, which
// the C API calls on every policy key), then the per-task cloud target for a few task tags. The environment is
// fixed, so nothing depends on the machine.
#include <nlohmann/json.hpp>

#include "saguaro/handoff/error.h"
#include "saguaro/handoff/options.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace saguaro::handoff;
  const nlohmann::json options = nlohmann::json::parse(data, data + size, nullptr, false);
  if (options.is_discarded()) return 0;
  const EnvLookup env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "HOME") return std::string("/nonexistent-saguaro-fuzz-home");
    if (name == "SAGUARO_CLOUD_PROVIDER") return std::string("openai");
    return std::nullopt;
  };
  HandoffOptions parsed;
  try {
    parsed = parse_options(options, env);
  } catch (const HandoffError&) {
    return 0;
  }
  std::string why;
  for (const char* tag : {"", "math", "code"}) (void)resolve_target(parsed, tag, &why);
  for (const auto& route : parsed.routes) (void)resolve_target(parsed, route.first, &why);
  return 0;
}
