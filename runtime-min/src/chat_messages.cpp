// OpenAI-style messages and tools: checked shapes, kept in their key order (nlohmann::ordered_json), so a tool or
// an arguments object is printed in the order the caller wrote it, as Python's json.loads keeps it.
#include "saguaro/chat_messages.h"

namespace saguaro {
namespace {

using Json = nlohmann::ordered_json;

bool parse_array(const std::string& text, const char* what, Json* out, std::string* err) {
  *out = Json::parse(text, nullptr, false);
  if (out->is_discarded()) return *err = std::string(what) + ": not valid JSON", false;
  if (!out->is_array()) return *err = std::string(what) + ": expected a JSON array", false;
  return true;
}

bool parse_call(const Json& call, const std::string& where, ToolCall* out, std::string* err) {
  if (!call.is_object()) return *err = where + ": expected an object", false;
  if (call.contains("type") && call["type"] != "function")
    return *err = where + ": \"type\" must be \"function\"", false;
  if (!call.contains("function") || !call["function"].is_object())
    return *err = where + ": needs a \"function\" object", false;
  const Json& f = call["function"];
  if (!f.contains("name") || !f["name"].is_string() || f["name"].get<std::string>().empty())
    return *err = where + ": \"function\" needs a non-empty string \"name\"", false;
  if (!f.contains("arguments") || !(f["arguments"].is_string() || f["arguments"].is_object()))
    return *err = where + ": \"function\" needs \"arguments\", a JSON string or an object", false;
  out->name = f["name"].get<std::string>();
  out->arguments = f["arguments"].dump();
  return true;
}

// An image reference at `at`, as an image part of `m`.
bool add_image(const Json& url, const std::string& at, ChatMessage* m, ChatRequest* out, std::string* err) {
  if (!url.is_string()) return *err = at + ": an image needs a string URL or path", false;
  ImageRef image{at, {}};
  if (!parse_media_url(url.get<std::string>(), at, &image.url, err)) return false;
  if (image.url.kind == MediaUrl::kData && image.url.mime.compare(0, 6, "image/") != 0)
    return *err = at + ": a data: URI of type \"" + image.url.mime + "\" is not an image", false;
  m->parts.push_back({ContentPart::kImage, ""});
  out->images.push_back(std::move(image));
  return true;
}

// A clip at `at`: an input_audio payload (base64 WAV bytes), a file path (Cactus' "audio") or a C API audio stream
// (`stream` > 0), as an audio part of `m`.
void add_audio(MediaUrl url, const std::string& at, ChatMessage* m, ChatRequest* out, int64_t stream = 0) {
  m->parts.push_back({ContentPart::kAudio, ""});
  out->audio.push_back({at, std::move(url), stream});
}

bool add_part(const Json& part, const std::string& at, ChatMessage* m, ChatRequest* out, std::string* err) {
  const Json* type = part.is_object() && part.contains("type") ? &part["type"] : nullptr;
  const std::string kind = type && type->is_string() ? type->get<std::string>() : "";
  if (kind == "text") {
    if (!part.contains("text") || !part["text"].is_string())
      return *err = at + ": a text part needs a string \"text\"", false;
    m->parts.push_back({ContentPart::kText, part["text"].get<std::string>()});
    return true;
  }
  if (kind == "image_url") {
    if (!part.contains("image_url") || !part["image_url"].is_object() || !part["image_url"].contains("url"))
      return *err = at + ": an image_url part needs image_url.url", false;
    return add_image(part["image_url"]["url"], at, m, out, err);
  }
  if (kind == "input_audio") {
    const Json* audio =
        part.contains("input_audio") && part["input_audio"].is_object() ? &part["input_audio"] : nullptr;
    if (audio && audio->contains("stream")) {  // a clip streamed through the C API: its id, nothing else
      const Json& id = (*audio)["stream"];
      if (audio->size() != 1 || !id.is_number_integer() || id.get<int64_t>() < 1)
        return *err = at + ": input_audio.stream must be a stream id (a positive integer) and the only key", false;
      add_audio({}, at, m, out, id.get<int64_t>());
      return true;
    }
    if (!audio || !audio->contains("data") || !(*audio)["data"].is_string() || !audio->contains("format") ||
        !(*audio)["format"].is_string())
      return *err = at + ": an input_audio part needs string input_audio.data and input_audio.format", false;
    const std::string format = (*audio)["format"].get<std::string>();
    if (format != "wav")
      return *err = at + ": input_audio.format \"" + format + "\" is not read here (only wav)", false;
    add_audio({MediaUrl::kData, "audio/wav", (*audio)["data"].get<std::string>()}, at, m, out);
    return true;
  }
  return *err = at + ": expected a part of type text, image_url or input_audio", false;
}

}  // namespace

bool read_chat_messages(const Json& msgs, bool user_only, ChatRequest* request, std::string* err) {
  if (!msgs.is_array()) return *err = "expected a JSON array", false;
  ChatRequest out;
  for (size_t k = 0; k < msgs.size(); ++k) {
    const Json& m = msgs[k];
    const std::string where = "messages[" + std::to_string(k) + "]";
    if (!m.is_object() || !m.contains("role") || !m["role"].is_string())
      return *err = where + ": needs a string \"role\"", false;
    ChatMessage msg{m["role"].get<std::string>(), "", {}, {}};
    if (user_only && msg.role != "user") continue;
    const bool assistant = msg.role == "assistant";
    if (m.contains("tool_calls") && !m["tool_calls"].is_null()) {
      if (!assistant) return *err = where + ": only assistant messages carry \"tool_calls\"", false;
      if (!m["tool_calls"].is_array()) return *err = where + ": \"tool_calls\" must be an array", false;
      for (size_t c = 0; c < m["tool_calls"].size(); ++c) {
        msg.tool_calls.emplace_back();
        if (!parse_call(m["tool_calls"][c], where + ".tool_calls[" + std::to_string(c) + "]", &msg.tool_calls.back(),
                        err))
          return false;
      }
    }
    if (m.contains("images")) {  // Cactus: image files that go before the content
      if (!m["images"].is_array()) return *err = where + ".images must be an array of file paths", false;
      for (size_t i = 0; i < m["images"].size(); ++i)
        if (!add_image(m["images"][i], where + ".images[" + std::to_string(i) + "]", &msg, &out, err)) return false;
    }
    if (m.contains("audio")) {  // Cactus: WAV files that go before the content, after the images
      if (!m["audio"].is_array()) return *err = where + ".audio must be an array of file paths", false;
      for (size_t i = 0; i < m["audio"].size(); ++i) {
        const std::string at = where + ".audio[" + std::to_string(i) + "]";
        if (!m["audio"][i].is_string() || m["audio"][i].get<std::string>().empty())
          return *err = at + " must be a file path", false;
        add_audio({MediaUrl::kFile, "", m["audio"][i].get<std::string>()}, at, &msg, &out);
      }
    }
    const bool null_content = !m.contains("content") || m["content"].is_null();
    if (null_content && !(assistant && !msg.tool_calls.empty()))
      return *err = where + " (" + msg.role + "): needs a \"content\" string or array of parts", false;
    if (!null_content && m["content"].is_string()) {
      if (msg.parts.empty()) msg.content = m["content"].get<std::string>();
      else msg.parts.push_back({ContentPart::kText, m["content"].get<std::string>()});
    } else if (!null_content && m["content"].is_array()) {
      const Json& parts = m["content"];
      for (size_t p = 0; p < parts.size(); ++p)
        if (!add_part(parts[p], where + ".content[" + std::to_string(p) + "]", &msg, &out, err)) return false;
      if (msg.parts.empty()) msg.parts.push_back({ContentPart::kText, ""});  // an empty list is an empty content
    } else if (!null_content) {
      return *err = where + " (" + msg.role + "): \"content\" must be a string or an array of parts", false;
    }
    out.messages.push_back(std::move(msg));
  }
  *request = std::move(out);
  return true;
}

bool parse_chat_messages(const std::string& json_text, bool user_only, ChatRequest* out, std::string* err) {
  Json msgs;
  return parse_array(json_text, "messages", &msgs, err) && read_chat_messages(msgs, user_only, out, err);
}

bool parse_chat_tools(const std::string& json_text, std::vector<std::string>* tools, std::string* err) {
  Json list;
  if (!parse_array(json_text, "tools", &list, err)) return false;
  std::vector<std::string> out;
  for (size_t k = 0; k < list.size(); ++k) {
    const Json& t = list[k];
    const std::string where = "tools[" + std::to_string(k) + "]";
    if (!t.is_object() || !t.contains("type") || t["type"] != "function")
      return *err = where + ": expected {\"type\": \"function\", \"function\": {...}}", false;
    if (!t.contains("function") || !t["function"].is_object() || !t["function"].contains("name") ||
        !t["function"]["name"].is_string())
      return *err = where + ": \"function\" needs a string \"name\"", false;
    out.push_back(t.dump());
  }
  *tools = std::move(out);
  return true;
}

}  // namespace saguaro
