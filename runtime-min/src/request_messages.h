// The messages of a C API request (OpenAI's shape, with Cactus' "images"): what the chat template renders and the
// images they carry, in prompt order.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "image_input.h"
#include "saguaro/chat_template.h"

namespace saguaro {

struct RequestMessages {
  std::vector<ChatMessage> chat;
  std::vector<ImageSource> images;  // one per image part, in the order of the parts
};

/// Reads `messages`: each {"role", "content"} with content a string or an array of parts — {"type": "text",
/// "text"}, {"type": "image_url", "image_url": {"url"}} with a data: URI or a file path (saguaro/media_url.h), or
/// {"type": "input_audio", ...} — and optionally Cactus' "images": [paths], which stand before the content. Without
/// a chat template (`all_roles` false) only user messages count. False + "messages_json: ..." naming the message and
/// part.
bool parse_request_messages(const nlohmann::json& messages, bool all_roles, RequestMessages* out, std::string* err);

}  // namespace saguaro
