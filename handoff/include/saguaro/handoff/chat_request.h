// The JSON body of POST /v1/chat/completions as `saguaro serve` reads it, parsed apart from the HTTP server so the
// handler's checks run (in tests and the fuzzer) without a socket.
#pragma once

#include <string>

#include "saguaro/handoff/chat_server.h"

namespace saguaro::handoff {

struct ChatCompletionRequest {
  GenerationRequest generation;
  bool stream = false;
  bool include_usage = false;  // stream_options.include_usage: a usage chunk before [DONE]
};

// A request the server answers with 400: the message and the offending field ("" when it is the whole body).
struct BadChatRequest {
  std::string message;
  std::string param;
};

// Validates the fields this server uses; fields it does not use (top_p, user, ...) are ignored, as OpenAI-compatible
// servers commonly do, because client SDKs send them unasked. Throws BadChatRequest.
ChatCompletionRequest parse_chat_request(const std::string& body);

}  // namespace saguaro::handoff
