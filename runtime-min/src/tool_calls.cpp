// Reading tool calls out of generated text, one reader per family's syntax (saguaro/tool_calls.h). Arguments come
// back as compact JSON with their keys in the order the model wrote them (nlohmann::ordered_json), as Python's
// json.loads keeps them.
#include "saguaro/tool_calls.h"

#include <string_view>
#include <nlohmann/json.hpp>

namespace saguaro {
namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kHermesOpen = "<tool_call>";
constexpr const char* kHermesClose = "</tool_call>";
constexpr const char* kGemmaOpen = "<|tool_call>call:";
constexpr const char* kGemmaClose = "<tool_call|>";
constexpr const char* kGemmaQuote = "<|\"|>";
constexpr const char* kPythonTag = "<|python_tag|>";
constexpr const char* kLlamaOpen = "{\"name\"";

bool fail(std::string* err, size_t index, const std::string& why) {
  return *err = "tool call " + std::to_string(index) + ": " + why, false;
}

// The call's name and arguments from Hermes' or Llama's JSON object ({"name", "arguments" | "parameters"}).
bool call_from_json(const std::string& text, const char* args_key, size_t index, ParsedToolCall* out,
                    std::string* err) {
  const Json call = Json::parse(text, nullptr, false);
  if (call.is_discarded() || !call.is_object()) return fail(err, index, "not a JSON object: " + text);
  if (!call.contains("name") || !call["name"].is_string() || call["name"].get<std::string>().empty())
    return fail(err, index, "no string \"name\"");
  out->name = call["name"].get<std::string>();
  const Json* args = call.contains(args_key) ? &call[args_key] : nullptr;
  if (!args) return fail(err, index, std::string("no \"") + args_key + "\" object");
  if (args->is_string()) {  // arguments given as a JSON string, OpenAI's own form
    const Json inner = Json::parse(args->get<std::string>(), nullptr, false);
    if (inner.is_discarded() || !inner.is_object())
      return fail(err, index, "the arguments string is not a JSON object: " + args->get<std::string>());
    return out->arguments = inner.dump(), true;
  }
  if (!args->is_object()) return fail(err, index, std::string("\"") + args_key + "\" is not an object");
  out->arguments = args->dump();
  return true;
}

// Calls written as blocks between `open` and `close` markers, the text around them content: `read` turns block
// `index`'s body (between the markers) into a call.
template <class ReadBody>
bool parse_blocks(const std::string& text, const std::string& open, const std::string& close, ReadBody read,
                  std::string* content, std::vector<ParsedToolCall>* calls, std::string* err) {
  size_t pos = 0;
  for (size_t at; (at = text.find(open, pos)) != std::string::npos;) {
    *content += text.substr(pos, at - pos);
    const size_t end = text.find(close, at + open.size());
    if (end == std::string::npos) return fail(err, calls->size(), open + " is not closed by " + close);
    calls->emplace_back();
    if (!read(text.substr(at + open.size(), end - at - open.size()), calls->size() - 1, &calls->back(), err))
      return false;
    pos = end + close.size();
  }
  *content += text.substr(pos);
  return true;
}

bool hermes_call(const std::string& body, size_t index, ParsedToolCall* out, std::string* err) {
  return call_from_json(body, "arguments", index, out, err);
}

bool parse_llama3(const std::string& text, std::string* content, std::vector<ParsedToolCall>* calls,
                  std::string* err) {
  std::string body = python_strip(text);
  const bool tagged = body.rfind(kPythonTag, 0) == 0;
  if (tagged) body = python_strip(body.substr(std::string(kPythonTag).size()));
  // Without the tag only an answer that opens like the template's calls is read as one; other JSON is content.
  if (!tagged && body.rfind(kLlamaOpen, 0) != 0) return *content = text, true;
  calls->emplace_back();
  const Json probe = Json::parse(body, nullptr, false);
  const char* key = probe.is_object() && probe.contains("arguments") && !probe.contains("parameters") ? "arguments"
                                                                                                      : "parameters";
  return call_from_json(body, key, 0, &calls->back(), err);
}

// Gemma 4's value syntax (the chat template's format_argument) read into JSON: <|"|>string<|"|>, numbers, true,
// false, null or None, {key:value,...} with bare or quoted keys, [value,...].
struct GemmaReader {
  const std::string& s;
  size_t p;
  std::string why;

  bool quote_at(size_t at) const { return s.compare(at, 5, kGemmaQuote) == 0; }
  bool error(const std::string& w) { return why = w + " at byte " + std::to_string(p), false; }

  bool string(std::string* out) {
    p += 5;
    const size_t end = s.find(kGemmaQuote, p);
    if (end == std::string::npos) return error("a <|\"|> string is not closed");
    *out = s.substr(p, end - p);
    p = end + 5;
    return true;
  }
  bool key(std::string* out) {
    if (quote_at(p)) return string(out);
    const size_t colon = s.find(':', p);
    if (colon == std::string::npos || colon == p) return error("expected key:value");
    *out = s.substr(p, colon - p);
    p = colon;
    return true;
  }
  bool object(Json* out) {
    *out = Json::object();
    if (s[p] != '{') return error("expected {");
    ++p;
    if (p < s.size() && s[p] == '}') return ++p, true;
    while (true) {
      std::string k;
      if (!key(&k)) return false;
      if (p >= s.size() || s[p] != ':') return error("expected ':' after key " + k);
      ++p;
      if (!value(&(*out)[k])) return false;
      if (p < s.size() && s[p] == ',') { ++p; continue; }
      if (p < s.size() && s[p] == '}') return ++p, true;
      return error("expected ',' or '}'");
    }
  }
  bool array(Json* out) {
    *out = Json::array();
    ++p;
    if (p < s.size() && s[p] == ']') return ++p, true;
    while (true) {
      out->emplace_back();
      if (!value(&out->back())) return false;
      if (p < s.size() && s[p] == ',') { ++p; continue; }
      if (p < s.size() && s[p] == ']') return ++p, true;
      return error("expected ',' or ']'");
    }
  }
  bool value(Json* out) {
    if (p >= s.size()) return error("the arguments end early");
    if (quote_at(p)) {
      std::string text;
      if (!string(&text)) return false;
      return *out = text, true;
    }
    if (s[p] == '{') return object(out);
    if (s[p] == '[') return array(out);
    size_t end = p;
    while (end < s.size() && s[end] != ',' && s[end] != '}' && s[end] != ']') ++end;
    // The template prints null through Python's str(): None.
    if (s.compare(p, end - p, "None") == 0) return p = end, *out = nullptr, true;
    const Json scalar = Json::parse(s.substr(p, end - p), nullptr, false);
    if (scalar.is_discarded() || scalar.is_structured() || scalar.is_string())
      return error("\"" + s.substr(p, end - p) + "\" is not a value");
    p = end;
    return *out = scalar, true;
  }
};

// Gemma 4's call:NAME{arguments}.
bool gemma4_call(const std::string& body, size_t index, ParsedToolCall* out, std::string* err) {
  const size_t brace = body.find('{');
  if (brace == std::string::npos || brace == 0) return fail(err, index, "expected call:NAME{...}: " + body);
  GemmaReader reader{body, brace, ""};
  Json args;
  if (!reader.object(&args)) return fail(err, index, "the arguments do not parse: " + reader.why);
  if (reader.p != body.size()) return fail(err, index, "text after the arguments: " + body.substr(reader.p));
  try {
    *out = {body.substr(0, brace), args.dump()};
  } catch (const nlohmann::json::exception&) {  // a key or string that is not UTF-8 (JSON text must be)
    return fail(err, index, "the arguments are not valid UTF-8");
  }
  return true;
}

// The longest tail of `text` that is a proper prefix of `marker`: text that may still become the marker.
size_t partial_marker(const std::string& text, const std::string& marker) {
  for (size_t n = std::min(text.size(), marker.size() - 1); n > 0; --n)
    if (text.compare(text.size() - n, n, marker, 0, n) == 0) return n;
  return 0;
}

}  // namespace

ToolCallSyntax tool_call_syntax(const ChatTemplate& t, std::string* why) {
  if (!(t.flags & ChatTemplate::kTools))
    return *why = "the model's chat template cannot express tools (it renders no tool list)", ToolCallSyntax::kNone;
  // What the template writes before a call's name (a message's content may stand between the two pieces).
  const std::string open = t.pieces[ChatTemplate::kCallsPrefix] + t.pieces[ChatTemplate::kCallOpen];
  if (t.args_format == ToolArgsFormat::kGemma4 && open.find(kGemmaOpen) != std::string::npos)
    return ToolCallSyntax::kGemma4;
  if (open.find(kHermesOpen) != std::string::npos) return ToolCallSyntax::kHermes;
  if (t.tools_format == ToolListFormat::kJsonIndent4 && open.find(kLlamaOpen) != std::string::npos)
    return ToolCallSyntax::kLlama3;
  *why = "the model's chat template writes tool calls in a form Saguaro does not read (not Qwen3's <tool_call>, "
         "Llama 3's JSON or Gemma 4's <|tool_call>)";
  return ToolCallSyntax::kNone;
}

bool parse_tool_calls(ToolCallSyntax syntax, const std::string& text, std::string* content,
                      std::vector<ParsedToolCall>* calls, std::string* err) {
  content->clear();
  calls->clear();
  bool ok = true;
  switch (syntax) {
    case ToolCallSyntax::kNone: *content = text; break;
    case ToolCallSyntax::kHermes:
      ok = parse_blocks(text, kHermesOpen, kHermesClose, hermes_call, content, calls, err);
      break;
    case ToolCallSyntax::kLlama3: ok = parse_llama3(text, content, calls, err); break;
    case ToolCallSyntax::kGemma4:
      ok = parse_blocks(text, kGemmaOpen, kGemmaClose, gemma4_call, content, calls, err);
      break;
  }
  if (!ok) return false;
  *content = python_strip(*content);
  return true;
}

size_t tool_free_prefix(ToolCallSyntax syntax, const std::string& text) {
  std::string marker;
  switch (syntax) {
    case ToolCallSyntax::kNone: return text.size();
    case ToolCallSyntax::kHermes: marker = kHermesOpen; break;
    case ToolCallSyntax::kGemma4: marker = kGemmaOpen; break;
    case ToolCallSyntax::kLlama3: {
      // A call is the whole answer: hold everything while the answer (past leading spaces) may still open one.
      const std::string body = python_strip(text);
      for (std::string_view m : {kPythonTag, kLlamaOpen})
        if (body.size() < m.size() ? m.compare(0, body.size(), body) == 0 : body.rfind(m, 0) == 0) return 0;
      return text.size();
    }
  }
  const size_t at = text.find(marker);
  if (at != std::string::npos) return at;
  return text.size() - partial_marker(text, marker);
}

ForcedCall forced_call(ToolCallSyntax syntax, const std::vector<std::string>& tools, const std::string& name) {
  if (syntax == ToolCallSyntax::kGemma4) return {kGemmaOpen + name, "", ""};
  if (syntax == ToolCallSyntax::kNone) return {};
  const bool hermes = syntax == ToolCallSyntax::kHermes;
  const char* args_key = hermes ? "arguments" : "parameters";
  // One schema per function: its parameters, or, with the name free, {"name": const, args_key: parameters}.
  Json any = Json::array();
  for (const std::string& text : tools) {
    const Json f = Json::parse(text)["function"];
    const Json params = f.contains("parameters") ? f["parameters"] : Json{{"type", "object"}};
    if (!name.empty() && f["name"] == name) {
      const std::string open = std::string(hermes ? kHermesOpen + std::string("\n") : "") + kLlamaOpen + ": " +
                               Json(name).dump() + ", \"" + args_key + "\": ";
      return {open, params.dump(), hermes ? "}\n" + std::string(kHermesClose) : "}"};
    }
    any.push_back({{"type", "object"},
                   {"properties", {{"name", {{"const", f["name"]}}}, {args_key, params}}},
                   {"required", {"name", args_key}},
                   {"additionalProperties", false}});
  }
  const Json schema = any.size() == 1 ? any[0] : Json{{"anyOf", any}};
  return {hermes ? kHermesOpen + std::string("\n") : "", schema.dump(), hermes ? "\n" + std::string(kHermesClose) : ""};
}

}  // namespace saguaro
