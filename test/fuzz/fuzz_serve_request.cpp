// libFuzzer target: the body of POST /v1/chat/completions as `saguaro serve`'s handler reads it (the same function the
// HTTP handler calls; cpp-httplib's own request-line and header parsing is the library's).
#include "saguaro/handoff/chat_request.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace saguaro::handoff;
  try {
    const ChatCompletionRequest r = parse_chat_request(std::string(reinterpret_cast<const char*>(data), size));
    if (r.generation.max_tokens < 1 || !(r.generation.temperature >= 0 && r.generation.temperature <= 2))
      __builtin_trap();
  } catch (const BadChatRequest&) {
  }
  return 0;
}
