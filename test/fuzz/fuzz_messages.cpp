// libFuzzer target: OpenAI-shaped messages JSON (text, image_url data URLs, input_audio) as the handoff reads it, then
// the privacy filter and the request body of each cloud provider built from what passed.
#include <nlohmann/json.hpp>

#include "saguaro/handoff/error.h"
#include "saguaro/handoff/message.h"
#include "saguaro/handoff/provider.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace saguaro::handoff;
  const nlohmann::json messages = nlohmann::json::parse(data, data + size, nullptr, false);
  if (messages.is_discarded()) return 0;
  std::vector<Message> parsed;
  try {
    parsed = messages_from_json(messages);
  } catch (const HandoffError&) {
    return 0;
  }
  if (estimate_prompt_tokens(parsed) < 0) __builtin_trap();
  const PrivacyFiltered filtered = apply_privacy_switches(parsed, size % 2, size % 3);
  ChatRequest request;
  request.model = "fuzz-model";
  request.messages = filtered.messages;
  for (ProviderKind p : {ProviderKind::OpenAI, ProviderKind::Anthropic, ProviderKind::Gemini}) {
    std::vector<std::string> notes;
    (void)build_body(p, request, &notes).dump();
  }
  return 0;
}
