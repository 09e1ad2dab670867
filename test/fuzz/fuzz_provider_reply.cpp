// libFuzzer target: a cloud provider's reply body through its parser (OpenAI chat completions, Anthropic messages,
// Gemini generateContent). The first byte picks the provider and the HTTP status; the rest is the body.
#include "saguaro/handoff/provider.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace saguaro::handoff;
  if (size < 1) return 0;
  static const ProviderKind kProviders[] = {ProviderKind::OpenAI, ProviderKind::Anthropic, ProviderKind::Gemini};
  static const long kStatuses[] = {200, 201, 400, 401, 429, 500, 503, 0, -1, 299, 300, 199};
  const ProviderKind provider = kProviders[data[0] % 3];
  const long status = kStatuses[(data[0] / 3) % 12];
  const std::string body(reinterpret_cast<const char*>(data + 1), size - 1);
  const ProviderReply reply = parse_reply(provider, status, body);
  if (reply.ok == !reply.error.empty()) __builtin_trap();  // exactly one of an answer and an error
  return 0;
}
