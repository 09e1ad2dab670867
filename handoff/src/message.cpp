#include "saguaro/handoff/message.h"

#include "saguaro/handoff/error.h"

#include <fstream>
#include <iterator>

#include "saguaro/media_url.h"

namespace saguaro::handoff {
namespace {

using nlohmann::json;

std::string where(size_t index) { return "messages[" + std::to_string(index) + "]"; }

// The MIME type of an image file from its first bytes (the formats the local front-end decodes).
std::string image_mime(const std::string& bytes) {
  if (bytes.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0) return "image/png";
  if (bytes.compare(0, 3, "\xff\xd8\xff") == 0) return "image/jpeg";
  return "";
}

// An image reference (saguaro/media_url.h): a data: URI as it is, a file read into one when `files` allows it.
Attachment image_attachment(const std::string& url, const std::string& at, LocalFiles files) {
  MediaUrl media;
  std::string err;
  if (!parse_media_url(url, at, &media, &err)) throw HandoffError(err);
  if (media.kind == MediaUrl::kData) {
    if (media.mime.compare(0, 6, "image/") != 0) throw HandoffError(at + ": a data: URI of type \"" + media.mime + "\" is not an image");
    return {AttachmentKind::Image, media.mime, media.payload};
  }
  if (files == LocalFiles::kRefuse) throw HandoffError(at + ": file paths are not accepted here: send a data: URI");
  std::ifstream in(media.payload, std::ios::binary);
  if (!in.is_open()) throw HandoffError(at + ": cannot open " + media.payload);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw HandoffError(at + ": cannot read " + media.payload);
  const std::string mime = image_mime(bytes);
  if (mime.empty()) throw HandoffError(at + ": " + media.payload + " is not a PNG or JPEG file");
  return {AttachmentKind::Image, mime, base64_encode(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size())};
}

// The largest audio file read for a provider: far above the 30 s the device takes (11 MiB as 48 kHz stereo float),
// far below what a header can claim (a 3-hour file must not be read into memory only to be refused).
constexpr std::streamoff kMaxAudioFileBytes = std::streamoff(64) << 20;

// A WAV file of Cactus' "audio", read into an attachment when `files` allows it.
Attachment audio_file_attachment(const std::string& path, const std::string& at, LocalFiles files) {
  if (files == LocalFiles::kRefuse) throw HandoffError(at + ": file paths are not accepted here: send input_audio data");
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in.is_open()) throw HandoffError(at + ": cannot open " + path);
  if (in.tellg() > kMaxAudioFileBytes)
    throw HandoffError(at + ": " + path + " is larger than the " + std::to_string(kMaxAudioFileBytes >> 20) +
                       " MiB sent to a provider");
  in.seekg(0);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw HandoffError(at + ": cannot read " + path);
  if (bytes.compare(0, 4, "RIFF") != 0 || bytes.compare(8, 4, "WAVE") != 0)
    throw HandoffError(at + ": " + path + " is not a WAV file");
  return {AttachmentKind::Audio, "audio/wav",
          base64_encode(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size())};
}

void add_part(Message& m, const json& part, const std::string& at, LocalFiles files) {
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
    m.attachments.push_back(image_attachment(*url, at, files));
  } else if (type == "input_audio") {
    const json* audio = part.contains("input_audio") && part["input_audio"].is_object() ? &part["input_audio"] : nullptr;
    // A clip streamed through the C API (saguaro_audio_*) exists as soft tokens in that process only: neither a
    // provider nor the server's model can read it.
    if (audio && audio->contains("stream"))
      throw HandoffError(at + ": input_audio.stream names a clip only the C API that streamed it holds; send "
                         "input_audio data here");
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

std::vector<Message> messages_from_json(const json& messages, LocalFiles files) {
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
    if (m.role != "system" && m.role != "user" && m.role != "assistant" && m.role != "tool") {
      throw HandoffError(at + ".role \"" + m.role + "\" is not one of system, user, assistant, tool");
    }
    if (item.contains("tool_calls") && !item["tool_calls"].is_null()) {
      if (m.role != "assistant" || !item["tool_calls"].is_array())
        throw HandoffError(at + ".tool_calls must be an array, on an assistant message");
      m.tool_calls = item["tool_calls"];
    }
    if (m.role == "tool" && item.contains("tool_call_id")) {
      if (!item["tool_call_id"].is_string()) throw HandoffError(at + ".tool_call_id must be a string");
      m.tool_call_id = item["tool_call_id"];
    }
    if (item.contains("images")) {  // Cactus: image files that go before the content
      if (!item["images"].is_array()) throw HandoffError(at + ".images must be an array of file paths");
      for (size_t k = 0; k < item["images"].size(); ++k) {
        const std::string where = at + ".images[" + std::to_string(k) + "]";
        if (!item["images"][k].is_string()) throw HandoffError(where + " must be a file path");
        m.attachments.push_back(image_attachment(item["images"][k], where, files));
      }
    }
    if (item.contains("audio")) {  // Cactus: WAV files that go before the content, after the images
      if (!item["audio"].is_array()) throw HandoffError(at + ".audio must be an array of file paths");
      for (size_t k = 0; k < item["audio"].size(); ++k) {
        const std::string where = at + ".audio[" + std::to_string(k) + "]";
        if (!item["audio"][k].is_string()) throw HandoffError(where + " must be a file path");
        m.attachments.push_back(audio_file_attachment(item["audio"][k], where, files));
      }
    }
    const bool calls = !m.tool_calls.is_null();
    if (!item.contains("content") && !calls) throw HandoffError(at + ".content is missing");
    const json& content = item.contains("content") ? item["content"] : json(nullptr);
    if (content.is_string()) {
      m.content = content;
    } else if (content.is_array()) {
      for (size_t k = 0; k < content.size(); ++k)
        add_part(m, content[k], at + ".content[" + std::to_string(k) + "]", files);
    } else if (!(calls && content.is_null())) {  // an assistant's calls may come without text
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
    Message kept = m;
    kept.attachments.clear();
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
