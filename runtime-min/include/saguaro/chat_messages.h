// OpenAI-style messages and tool lists, into what ChatTemplate::apply takes: the one reader of request messages
// (the C API's saguaro_complete and `saguaro render` both use it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "saguaro/chat_template.h"
#include "saguaro/media_url.h"

namespace saguaro {

/// An image a message refers to, where it stands in the request ("messages[0].content[1]") and its URL.
struct ImageRef {
  std::string at;
  MediaUrl url;
};

/// An audio clip a message carries: where it stands in the request and its WAV bytes (kData: an input_audio part's
/// base64 payload, mime audio/wav) or file (kFile: a path of Cactus' "audio"), or the clip of a C API audio stream.
struct AudioRef {
  std::string at;
  MediaUrl url;
  int64_t stream = 0;  // > 0: the id of a stream of saguaro_audio_begin (saguaro_audio_id); `url` is then unused
};

/// Messages and the images and audio clips they carry, each in prompt order.
struct ChatRequest {
  std::vector<ChatMessage> messages;
  std::vector<ImageRef> images;
  std::vector<AudioRef> audio;
};

/// Reads an array of messages: each {"role", "content"} with content a string or an array of parts — {"type":
/// "text", "text"}, {"type": "image_url", "image_url": {"url"}} (saguaro/media_url.h: a data: URI, a file:// URL or a
/// path; remote URLs refused), {"type": "input_audio", "input_audio": {"data": BASE64, "format": "wav"}} (other
/// formats refused) or {"type": "input_audio", "input_audio": {"stream": ID}} (a C API audio stream) — Cactus'
/// "images": [paths] and "audio": [WAV paths] (before the content, images first), and on assistant messages
/// `tool_calls` ([{"type": "function", "function": {"name", "arguments"}}], arguments a JSON string or an object; the
/// content may then be null). With `user_only` (no chat template to render other roles) only user messages are read.
/// The JSON keeps key order, so arguments print as the caller wrote them. False + "problem" naming the message and
/// part.
bool read_chat_messages(const nlohmann::ordered_json& messages, bool user_only, ChatRequest* out, std::string* err);

/// The same from JSON text ("not valid JSON", "expected a JSON array" for text that is neither).
bool parse_chat_messages(const std::string& json_text, bool user_only, ChatRequest* out, std::string* err);

/// An array of OpenAI tools ({"type": "function", "function": {"name", ...}}), each kept as its JSON text with its
/// keys in their order. False + "problem" naming the tool on anything else.
bool parse_chat_tools(const std::string& json_text, std::vector<std::string>* tools, std::string* err);

}  // namespace saguaro
