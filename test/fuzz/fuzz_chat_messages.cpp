// libFuzzer target: the runtime's one reader of request messages (saguaro/chat_messages.h), as saguaro_complete and
// `saguaro render` read messages_json — content parts, image URLs, Cactus' "images", assistant tool calls — and
// the tool list, then the base64 payload of every data: URI it accepted.
#include <string>
#include <vector>

#include "saguaro/chat_messages.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  saguaro::ChatRequest request;
  std::string err;
  if (saguaro::parse_chat_messages(text, /*user_only=*/size % 2, &request, &err)) {
    for (const saguaro::ImageRef& image : request.images) {
      if (image.at.empty()) __builtin_trap();  // every image names where it stands in the request
      std::vector<uint8_t> bytes;
      if (image.url.kind != saguaro::MediaUrl::kFile) (void)saguaro::base64_decode(image.url.payload, &bytes);
    }
  } else if (err.empty()) {
    __builtin_trap();  // a refusal always says why
  }
  std::vector<std::string> tools;
  err.clear();
  if (!saguaro::parse_chat_tools(text, &tools, &err) && err.empty()) __builtin_trap();
  return 0;
}
