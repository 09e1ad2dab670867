// Public entry points: template text -> `chat.template` tensor bytes, and reading templates and special tokens
// from a Hugging Face tokenizer_config.json.
#include "ChatCompiler.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "ChatPieces.h"

namespace saguaro {
namespace {

using nlohmann::json;

bool read_text(const std::string& path, std::string* text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  *text = ss.str();
  return true;
}

bool read_config(const std::string& path, json* cfg, std::string* err) {
  std::string text;
  if (!read_text(path, &text)) return *err = path + ": cannot open", false;
  *cfg = json::parse(text, nullptr, false);
  if (cfg->is_discarded() || !cfg->is_object()) return *err = path + ": not a JSON object", false;
  return true;
}

// A special token as tokenizer_config.json writes it: a string, an AddedToken object or null.
bool token_text(const json& cfg, const char* key, std::string* out, const std::string& path, std::string* err) {
  if (!cfg.contains(key) || cfg[key].is_null()) return true;
  const json& v = cfg[key];
  if (v.is_string()) return *out = v.get<std::string>(), true;
  if (v.is_object() && v.contains("content") && v["content"].is_string())
    return *out = v["content"].get<std::string>(), true;
  return *err = path + ": \"" + key + "\" must be a string, {\"content\": ...} or null", false;
}

}  // namespace

bool compile_chat_template(const std::string& template_text, const ChatTemplateOptions& opts,
                           std::vector<uint8_t>* tensor_bytes, std::string* err, std::vector<std::string>* notes) {
  try {
    const chat::Template tmpl(template_text);
    std::vector<uint8_t> bytes = chat::decompose(tmpl, opts, notes).serialize();
    // The runtime's reader is the rule for what a bundle may hold (it refuses pieces that are not UTF-8, which a
    // template file's literal text may be): a template it would refuse fails here, at compile time.
    ChatTemplate check;
    std::string why;
    if (!ChatTemplate::parse(bytes.data(), bytes.size(), &check, &why))
      return *err = "chat_template: cannot be stored in a bundle (" + why + ")", false;
    *tensor_bytes = std::move(bytes);
    return true;
  } catch (const chat::TemplateError& e) {
    *err = e.what();
  }
  return false;
}

bool read_chat_template(const std::string& path, std::string* template_text, std::string* err) {
  json cfg;
  if (!read_config(path, &cfg, err)) return false;
  if (!cfg.contains("chat_template") || cfg["chat_template"].is_null()) {
    const size_t slash = path.find_last_of('/');
    const std::string beside = (slash == std::string::npos ? "" : path.substr(0, slash + 1)) + "chat_template.jinja";
    if (read_text(beside, template_text)) return true;
    return *err = path + ": no \"chat_template\" (and no chat_template.jinja beside it)", false;
  }
  const json& t = cfg["chat_template"];
  if (t.is_string()) return *template_text = t.get<std::string>(), true;
  if (!t.is_array()) return *err = path + ": \"chat_template\" must be a string or a list of {name, template}", false;
  std::string names;
  for (const json& e : t) {
    if (!e.is_object() || !e.contains("name") || !e["name"].is_string() || !e.contains("template") ||
        !e["template"].is_string())
      return *err = path + ": \"chat_template\" list entries must be {\"name\": ..., \"template\": ...}", false;
    if (e["name"] == "default") return *template_text = e["template"].get<std::string>(), true;
    names += (names.empty() ? "" : ", ") + e["name"].get<std::string>();
  }
  return *err = path + ": \"chat_template\" has no template named \"default\" (found: " + names + ")", false;
}

bool read_chat_special_tokens(const std::string& path, ChatTemplateOptions* opts, std::string* err) {
  json cfg;
  return read_config(path, &cfg, err) && token_text(cfg, "bos_token", &opts->bos_token, path, err) &&
         token_text(cfg, "eos_token", &opts->eos_token, path, err);
}

}  // namespace saguaro
