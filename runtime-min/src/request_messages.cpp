#include "request_messages.h"

#include "saguaro/media_url.h"

namespace saguaro {
namespace {

using nlohmann::json;

// An image reference at `at`: a data: URI's bytes or a file path.
bool add_image(const std::string& url, const std::string& at, ChatMessage* m, RequestMessages* out, std::string* err) {
  MediaUrl media;
  if (!parse_media_url(url, at, &media, err)) return false;
  ImageSource image{at, "", {}};
  if (media.kind == MediaUrl::kFile) {
    image.name = image.path = media.payload;
  } else if (media.mime.compare(0, 6, "image/") != 0) {
    return *err = at + ": a data: URI of type \"" + media.mime + "\" is not an image", false;
  } else if (!base64_decode(media.payload, &image.bytes)) {
    return *err = at + ": the data: URI's payload is not base64", false;
  }
  m->parts.push_back({ContentPart::kImage, ""});
  out->images.push_back(std::move(image));
  return true;
}

bool add_part(const json& part, const std::string& at, ChatMessage* m, RequestMessages* out, std::string* err) {
  const std::string type = part.is_object() && part.contains("type") && part["type"].is_string() ? part["type"] : "";
  if (type == "text") {
    if (!part.contains("text") || !part["text"].is_string()) return *err = at + ": a text part needs a string \"text\"", false;
    m->parts.push_back({ContentPart::kText, part["text"]});
    return true;
  }
  if (type == "image_url") {
    const json* url = part.contains("image_url") && part["image_url"].is_object() && part["image_url"].contains("url")
                          ? &part["image_url"]["url"] : nullptr;
    if (!url || !url->is_string()) return *err = at + ": an image_url part needs a string image_url.url", false;
    return add_image(*url, at, m, out, err);
  }
  if (type == "input_audio") return *err = at + ": the model has no audio tower to take it", false;
  return *err = at + ": expected a part of type text, image_url or input_audio", false;
}

}  // namespace

bool parse_request_messages(const json& messages, bool all_roles, RequestMessages* out, std::string* err) {
  std::string problem;
  auto fail = [&](const std::string& what) { return *err = "messages_json: " + what, false; };
  if (!messages.is_array()) return fail("expected a JSON array");
  for (size_t i = 0; i < messages.size(); ++i) {
    const json& item = messages[i];
    const std::string at = "messages[" + std::to_string(i) + "]";
    if (!item.is_object() || !item.contains("role") || !item["role"].is_string())
      return fail(at + " needs a string \"role\"");
    ChatMessage m{item["role"], "", {}};
    if (!all_roles && m.role != "user") continue;
    if (item.contains("images")) {  // Cactus: image files that go before the content
      if (!item["images"].is_array()) return fail(at + ".images must be an array of file paths");
      for (size_t k = 0; k < item["images"].size(); ++k) {
        const json& path = item["images"][k];
        const std::string where = at + ".images[" + std::to_string(k) + "]";
        if (!path.is_string()) return fail(where + " must be a file path");
        if (!add_image(path, where, &m, out, &problem)) return fail(problem);
      }
    }
    if (item.contains("audio")) return fail(at + ".audio: the model has no audio tower to take it");
    const json* content = item.contains("content") ? &item["content"] : nullptr;
    if (content && content->is_string()) {
      if (m.parts.empty()) m.content = *content;
      else m.parts.push_back({ContentPart::kText, *content});
    } else if (content && content->is_array()) {
      for (size_t k = 0; k < content->size(); ++k)
        if (!add_part((*content)[k], at + ".content[" + std::to_string(k) + "]", &m, out, &problem))
          return fail(problem);
      if (m.parts.empty()) m.parts.push_back({ContentPart::kText, ""});  // an empty list is an empty content
    } else {
      return fail(at + " (" + m.role + ") needs a \"content\" string or array of parts");
    }
    out->chat.push_back(std::move(m));
  }
  return true;
}

}  // namespace saguaro
