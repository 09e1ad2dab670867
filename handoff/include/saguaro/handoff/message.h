// Chat messages as the engine and the server see them, and the privacy filter applied before anything leaves the
// device.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace saguaro::handoff {

enum class AttachmentKind { Image, Audio };

// A base64 media part of a message; sent to a provider only when the privacy switches allow it.
struct Attachment {
  AttachmentKind kind = AttachmentKind::Image;
  std::string mime_type;  // e.g. image/png, audio/wav
  std::string base64_data;
};

struct Message {
  std::string role;  // system | user | assistant | tool
  std::string content;
  std::vector<Attachment> attachments;
  nlohmann::json tool_calls;  // an assistant's OpenAI tool_calls, as sent (null: none)
  std::string tool_call_id;   // a tool message: the call it answers
};

// Whether image and audio references may name files on this device: yes for the C API and `saguaro complete` (the caller's
// own files), no for `saguaro serve` (a client must not make the server read its files).
enum class LocalFiles { kRead, kRefuse };

// Parses the OpenAI message shape: [{"role": ..., "content": "text" | [parts]}] (an assistant's "tool_calls" kept,
// its content then may be null; a "tool" message's "tool_call_id" kept), where a part is
// {"type":"text","text":...}, {"type":"image_url","image_url":{"url":...}} (a data: URI, or with LocalFiles::kRead
// a PNG or JPEG file, read into one; remote URLs are refused: saguaro/media_url.h) or
// {"type":"input_audio","input_audio":{"data":<base64>,"format":"wav"|"mp3"}}; a message may also carry Cactus'
// "images": [paths] and "audio": [WAV paths] (read like image files: only with LocalFiles::kRead). Throws HandoffError naming the offending message index and field.
std::vector<Message> messages_from_json(const nlohmann::json& messages, LocalFiles files = LocalFiles::kRead);

// The messages with media parts the user did not allow removed, and how many were removed of each kind.
struct PrivacyFiltered {
  std::vector<Message> messages;
  int dropped_images = 0;
  int dropped_audio = 0;
};
PrivacyFiltered apply_privacy_switches(const std::vector<Message>& messages, bool send_images, bool send_audio);

// Rough prompt size used to reserve spend before the provider reports real usage (about 4 bytes per token,
// rounded up, plus a per-message overhead, so the estimate errs high).
long long estimate_prompt_tokens(const std::vector<Message>& messages);

}  // namespace saguaro::handoff
