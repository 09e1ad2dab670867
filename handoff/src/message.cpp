#include "saguaro/handoff/message.h"

#include "saguaro/handoff/error.h"

namespace saguaro::handoff {
namespace {

using nlohmann::json;

std::string where(size_t index) { return "messages[" + std::to_string(index) + "]"; }

// "data:image/png;base64,AAAA" -> mime and payload. Remote URLs are refused: the device would leak a fetchable
// address to the provider instead of the image, and the local model could not have seen it either.
Attachment image_from_data_url(const std::string& url, const std::string& at) {
  const std::string prefix = "data:";
  const size_t marker = url.find(";base64,");
  if (url.compare(0, prefix.size(), prefix) != 0 || marker == std::string::npos) {
    throw HandoffError(at + ": image_url must be a data:<mime>;base64,<data> URL");
  }
  Attachment a;
  a.kind = AttachmentKind::Image;
  a.mime_type = url.substr(prefix.size(), marker - prefix.size());
  a.base64_data = url.substr(marker + 8);
  if (a.mime_type.compare(0, 6, "image/") != 0 || a.base64_data.empty()) {
    throw HandoffError(at + ": image_url data URL must carry an image/* type and data");
  }
  return a;
}

void add_part(Message& m, const json& part, const std::string& at) {
  if (!part.is_object() || !part.contains("type") || !part["type"].is_string()) {
    throw HandoffError(at + ": each content part must be an object with a string \"type\"");
  }
  const std::string type = part["type"];
  if (type == "text") {
    if (!part.contains("text") || !part["text"].is_string()) throw HandoffError(at + ": text part needs a string \"text\"");
    if (!m.content.empty()) m.content += "\n";
    m.content += part["text"].get<std::string>();
  } else if (type == "image_url") {
    const json* url = part.contains("image_url") && part["image_url"].is_object() && part["image_url"].contains("url")
                          ? &part["image_url"]["url"] : nullptr;
    if (!url || !url->is_string()) throw HandoffError(at + ": image_url part needs image_url.url");
    m.attachments.push_back(image_from_data_url(*url, at));
  } else if (type == "input_audio") {
    const json* audio = part.contains("input_audio") && part["input_audio"].is_object() ? &part["input_audio"] : nullptr;
    if (!audio || !audio->contains("data") || !(*audio)["data"].is_string() || !audio->contains("format") ||
        !(*audio)["format"].is_string()) {
      throw HandoffError(at + ": input_audio part needs string input_audio.data and input_audio.format");
    }
    const std::string format = (*audio)["format"];
    if (format != "wav" && format != "mp3") throw HandoffError(at + ": input_audio.format must be wav or mp3");
    m.attachments.push_back({AttachmentKind::Audio, format == "wav" ? "audio/wav" : "audio/mpeg",
                             (*audio)["data"].get<std::string>()});
  } else {
    throw HandoffError(at + ": unsupported content part type \"" + type + "\"");
  }
}

}  // namespace

std::vector<Message> messages_from_json(const json& messages) {
  if (!messages.is_array()) throw HandoffError("messages must be a JSON array");
  if (messages.empty()) throw HandoffError("messages must not be empty");
  std::vector<Message> out;
  for (size_t i = 0; i < messages.size(); ++i) {
    const json& item = messages[i];
    const std::string at = where(i);
    if (!item.is_object()) throw HandoffError(at + " must be an object");
    if (!item.contains("role") || !item["role"].is_string()) throw HandoffError(at + ".role must be a string");
    Message m;
    m.role = item["role"];
    if (m.role != "system" && m.role != "user" && m.role != "assistant") {
      throw HandoffError(at + ".role \"" + m.role + "\" is not one of system, user, assistant");
    }
    if (!item.contains("content")) throw HandoffError(at + ".content is missing");
    const json& content = item["content"];
    if (content.is_string()) {
      m.content = content;
    } else if (content.is_array()) {
      for (const json& part : content) add_part(m, part, at);
    } else {
      throw HandoffError(at + ".content must be a string or an array of parts");
    }
    out.push_back(std::move(m));
  }
  return out;
}

PrivacyFiltered apply_privacy_switches(const std::vector<Message>& messages, bool send_images, bool send_audio) {
  PrivacyFiltered out;
  out.messages.reserve(messages.size());
  for (const Message& m : messages) {
    Message kept{m.role, m.content, {}};
    for (const Attachment& a : m.attachments) {
      const bool allowed = a.kind == AttachmentKind::Image ? send_images : send_audio;
      if (allowed) {
        kept.attachments.push_back(a);
      } else if (a.kind == AttachmentKind::Image) {
        ++out.dropped_images;
      } else {
        ++out.dropped_audio;
      }
    }
    out.messages.push_back(std::move(kept));
  }
  return out;
}

long long estimate_prompt_tokens(const std::vector<Message>& messages) {
  long long bytes = 0;
  for (const Message& m : messages) {
    bytes += static_cast<long long>(m.content.size()) + 16;
    // Providers bill media by size or resolution; 3 base64 chars per token over-estimates every documented rate.
    for (const Attachment& a : m.attachments) bytes += static_cast<long long>(a.base64_data.size()) * 4 / 3;
  }
  return (bytes + 3) / 4 + 8;
}

}  // namespace saguaro::handoff
