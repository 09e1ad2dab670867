// Chat template pieces: the `chat.template` tensor (kind "chat_template", dtype U8), written by
// compiler/chat/ from a Hugging Face chat_template and applied here with plain string concatenation.
//
// Format, little endian:
//   char[4]  magic   "SGCT"
//   uint32   version 4
//   uint32   flags   ChatTemplate::Flag; other bits must be 0
//   uint32   formats bits 0-7: ToolListFormat, 8-15: ToolArgsFormat, 16-23: ToolContentFormat; other bits 0
//   uint32   count   ChatTemplate::kNumPieces (34)
//   count x { uint32 length; length bytes of UTF-8 }, in ChatTemplate::Piece order
//   nothing after the last piece.
//
// A prompt is: preamble (without a leading `bos` when the tokenizer adds BOS itself), then either
// system_prefix + content + system_suffix for a first system message or no_system, then per message
// role prefix (user_prefix_after_system for a user message right after the system message, user_prefix_first for
// one that opens the conversation) + content + suffix, then generation_prompt when asked. An assistant message
// right after another one replaces that one's suffix and its own prefix with assistant_after_assistant. A content
// given as parts is its parts in order: each text (stripped when its role's contents are) and the image or audio
// piece for each media item; the whole is not stripped again. A run of tool messages is tool_prefix + content
// (tool_between + content)... + tool_suffix. An assistant message with tool calls is calls_prefix, its content and
// calls_content_sep (content first, when not empty), call_open, then per call name + call_mid + arguments with
// call_between between calls, then calls_end (+ content + calls_suffix when the content follows the calls). With a
// tool list the kTools* pieces replace their plain namesakes and the list (each tool printed in tools_format,
// tools_separator between) replaces the marker U+E002 in them.
#include "saguaro/chat_template.h"

#include <cstring>

namespace saguaro {
namespace {

constexpr char kMagic[4] = {'S', 'G', 'C', 'T'};
constexpr uint32_t kVersion = 4;
constexpr uint32_t kHeaderBytes = 20;

uint32_t read_u32(const unsigned char* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

void write_u32(std::vector<uint8_t>* out, uint32_t v) {
  for (int k = 0; k < 4; ++k) out->push_back(static_cast<uint8_t>(v >> (8 * k)));
}

// Length of the valid UTF-8 sequence at s[k] with its code point in *cp, or 0 when the bytes are not valid UTF-8.
size_t utf8_at(const std::string& s, size_t k, uint32_t* cp) {
  const unsigned char c = static_cast<unsigned char>(s[k]);
  const size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  if (n == 0 || k + n > s.size()) return 0;
  uint32_t v = n == 1 ? c : n == 2 ? c & 0x1f : n == 3 ? c & 0x0f : c & 0x07;
  for (size_t j = 1; j < n; ++j) {
    const unsigned char d = static_cast<unsigned char>(s[k + j]);
    if ((d & 0xc0) != 0x80) return 0;
    v = (v << 6) | (d & 0x3f);
  }
  static const uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (v < kMin[n] || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return 0;
  *cp = v;
  return n;
}

bool valid_utf8(const std::string& s) {
  uint32_t cp;
  for (size_t k = 0, n; k < s.size(); k += n)
    if ((n = utf8_at(s, k, &cp)) == 0) return false;
  return true;
}

// Python's str.isspace() for one code point.
bool is_space(uint32_t cp) {
  return (cp >= 0x09 && cp <= 0x0d) || (cp >= 0x1c && cp <= 0x20) || cp == 0x85 || cp == 0xa0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 || cp == 0x2029 || cp == 0x202f || cp == 0x205f ||
         cp == 0x3000;
}

}  // namespace

std::string python_strip(const std::string& s) {
  size_t b = 0, last_end = 0;
  uint32_t cp;
  bool leading = true;
  for (size_t k = 0, n; k < s.size(); k += n) {
    n = utf8_at(s, k, &cp);
    const bool space = n != 0 && is_space(cp);
    if (n == 0) n = 1;
    if (leading && space) {
      b = k + n;
      continue;
    }
    leading = false;
    if (!space) last_end = k + n;
  }
  return leading ? std::string() : s.substr(b, last_end - b);
}


namespace {

// A message's content as the template renders it: the content, or its parts joined.
bool render_content(const ChatTemplate& t, const ChatMessage& m, bool trim, std::string* out, std::string* err) {
  if (m.parts.empty()) return *out = trim ? python_strip(m.content) : m.content, true;
  out->clear();
  for (const ContentPart& p : m.parts) {
    if (p.kind == ContentPart::kText) {
      *out += trim ? python_strip(p.text) : p.text;
      continue;
    }
    const bool image = p.kind == ContentPart::kImage;
    const std::string& piece = t.pieces[image ? ChatTemplate::kImage : ChatTemplate::kAudio];
    if (piece.empty())
      return *err = std::string("chat template: the model's chat template has no ") + (image ? "image" : "audio") +
                    " placeholder",
             false;
    *out += piece;
  }
  return true;
}

}  // namespace

bool ChatTemplate::parse(const void* data, uint64_t bytes, ChatTemplate* out, std::string* err) {
  const auto* p = static_cast<const unsigned char*>(data);
  if (!p || bytes < kHeaderBytes) return *err = "chat.template: truncated header", false;
  if (std::memcmp(p, kMagic, 4) != 0) return *err = "chat.template: bad magic (expected \"SGCT\")", false;
  if (read_u32(p + 4) != kVersion)
    return *err = "chat.template: unsupported version " + std::to_string(read_u32(p + 4)), false;
  ChatTemplate t;
  t.flags = read_u32(p + 8);
  if (t.flags & ~uint32_t(kKnownFlags)) return *err = "chat.template: unknown flags " + std::to_string(t.flags), false;
  const uint32_t formats = read_u32(p + 12);
  if ((formats & 0xff) >= uint32_t(ToolListFormat::kCount) || (formats >> 8 & 0xff) >= uint32_t(ToolArgsFormat::kCount) ||
      (formats >> 16) >= uint32_t(ToolContentFormat::kCount))
    return *err = "chat.template: unknown tool formats " + std::to_string(formats), false;
  t.tools_format = ToolListFormat(formats & 0xff);
  t.args_format = ToolArgsFormat(formats >> 8 & 0xff);
  t.tool_content_format = ToolContentFormat(formats >> 16);
  if (read_u32(p + 16) != kNumPieces)
    return *err = "chat.template: expected " + std::to_string(int(kNumPieces)) + " pieces, found " +
                  std::to_string(read_u32(p + 16)),
           false;
  uint64_t pos = kHeaderBytes;
  for (int k = 0; k < kNumPieces; ++k) {
    if (bytes - pos < 4) return *err = "chat.template: truncated at piece " + std::to_string(k), false;
    const uint32_t len = read_u32(p + pos);
    pos += 4;
    if (bytes - pos < len) return *err = "chat.template: piece " + std::to_string(k) + " runs past the end", false;
    t.pieces[k].assign(reinterpret_cast<const char*>(p + pos), len);
    pos += len;
    if (!valid_utf8(t.pieces[k])) return *err = "chat.template: piece " + std::to_string(k) + " is not UTF-8", false;
  }
  if (pos != bytes) return *err = "chat.template: " + std::to_string(bytes - pos) + " trailing bytes", false;
  *out = std::move(t);
  return true;
}

std::vector<uint8_t> ChatTemplate::serialize() const {
  std::vector<uint8_t> out(kMagic, kMagic + 4);
  write_u32(&out, kVersion);
  write_u32(&out, flags);
  write_u32(&out, uint32_t(tools_format) | uint32_t(args_format) << 8 | uint32_t(tool_content_format) << 16);
  write_u32(&out, kNumPieces);
  for (const std::string& s : pieces) {
    write_u32(&out, static_cast<uint32_t>(s.size()));
    out.insert(out.end(), s.begin(), s.end());
  }
  return out;
}


namespace {

// One prompt being assembled: pieces, contents and the tool list.
struct Assembly {
  const ChatTemplate& t;
  const std::vector<std::string>& tools;
  std::string out;
  std::string* err;

  // Appends piece `k` of the plain or the tool-list set, the list in place of its marker.
  bool piece(int k, int with_tools = -1) {
    if (tools.empty() || with_tools < 0) return out += t.pieces[k], true;
    const std::string& p = t.pieces[with_tools];
    const size_t at = p.find(ChatTemplate::kToolsMarker);
    if (at == std::string::npos) return out += p, true;
    out.append(p, 0, at);
    for (size_t k = 0; k < tools.size(); ++k) {
      std::string text, why;
      if (!format_tool(t.tools_format, tools[k], &text, &why))
        return *err = "tools[" + std::to_string(k) + "]: " + why, false;
      out += (k ? t.pieces[ChatTemplate::kToolsSeparator] : "") + text;
    }
    out.append(p, at + 3, std::string::npos);
    return true;
  }

  bool calls(const ChatMessage& m, size_t index) {
    const std::string content = t.flags & ChatTemplate::kTrimAssistant ? python_strip(m.content) : m.content;
    const bool after = t.flags & ChatTemplate::kContentAfterCalls;
    const bool dropped = t.flags & ChatTemplate::kContentDroppedWithCalls;
    out += t.pieces[ChatTemplate::kCallsPrefix];
    if (!after && !dropped && !content.empty()) out += content + t.pieces[ChatTemplate::kCallsContentSep];
    out += t.pieces[ChatTemplate::kCallOpen];
    for (size_t c = 0; c < m.tool_calls.size(); ++c) {
      std::string args, why;
      if (!format_tool_arguments(t.args_format, t.flags & ChatTemplate::kStringArgumentsAsJson, m.tool_calls[c].arguments,
                                 &args, &why))
        return *err = "message " + std::to_string(index) + ", tool call " + std::to_string(c) + ": " + why, false;
      out += (c ? t.pieces[ChatTemplate::kCallBetween] : "") + m.tool_calls[c].name + t.pieces[ChatTemplate::kCallMid] + args;
    }
    out += t.pieces[ChatTemplate::kCallsEnd];
    if (after && !dropped) out += content + t.pieces[ChatTemplate::kCallsSuffix];
    return true;
  }
};

bool refuse(std::string* err, const std::string& why) { return *err = "chat template: " + why, false; }

}  // namespace

bool ChatTemplate::apply(const std::vector<ChatMessage>& messages, const std::vector<std::string>& tools,
                         bool add_generation_prompt, bool skip_bos, std::string* prompt, std::string* err) const {
  if (messages.empty()) return refuse(err, "no messages");
  if (!tools.empty() && !(flags & kTools)) return refuse(err, "tools were given but this template does not render a tool list");
  Assembly a{*this, tools, "", err};
  const std::string& bos = pieces[kBos];
  const int pre = tools.empty() ? kPreamble : kToolsPreamble;
  const bool strip_bos = skip_bos && !bos.empty() && pieces[pre].compare(0, bos.size(), bos) == 0;
  if (!a.piece(kPreamble, kToolsPreamble)) return false;
  if (strip_bos) a.out.erase(0, bos.size());
  size_t first = 0;
  std::string body;
  if (messages[0].role == "system") {
    if (!render_content(*this, messages[0], flags & kTrimSystem, &body, err)) return false;
    if (!a.piece(kSystemPrefix, kToolsSystemPrefix)) return false;
    a.out += body;
    if (!a.piece(kSystemSuffix, kToolsSystemSuffix)) return false;
    first = 1;
  } else if (!a.piece(kNoSystem, kToolsNoSystem)) {
    return false;
  }
  if (!tools.empty() && (flags & kToolsNeedUserFirst) && (first == messages.size() || messages[first].role != "user"))
    return refuse(err, "this template puts the tool list into the first user message, so one must follow the system message");
  for (size_t k = first; k < messages.size(); ++k) {
    const ChatMessage& m = messages[k];
    const std::string& role = m.role;
    const bool user = role == "user";
    if (role == "system") {
      if (!(flags & kSystemAnywhere)) return refuse(err, "a system message must be the first message");
      if (!render_content(*this, m, flags & kTrimSystem, &body, err)) return false;
      a.out += pieces[kSystemLaterPrefix] + body + pieces[kSystemLaterSuffix];
      continue;
    }
    if (role == "tool") {
      if (!(flags & kToolMessages)) return refuse(err, "this template does not render tool messages");
      const bool continues = k > first && messages[k - 1].role == "tool";
      if (continues) a.out.resize(a.out.size() - pieces[kToolSuffix].size());
      a.out += pieces[continues ? kToolBetween : kToolPrefix] + format_tool_content(tool_content_format, m.content) +
               pieces[kToolSuffix];
      continue;
    }
    if (!user && role != "assistant") return refuse(err, "unsupported role '" + role + "'");
    if ((flags & kAlternate) && user != ((k - first) % 2 == 0))
      return refuse(err, "roles must alternate user/assistant/user/... after the system message");
    if (!m.tool_calls.empty()) {
      if (!(flags & kToolCalls)) return refuse(err, "this template does not render tool calls");
      if ((flags & kSingleToolCall) && m.tool_calls.size() > 1)
        return refuse(err, "message " + std::to_string(k) + " has " + std::to_string(m.tool_calls.size()) +
                               " tool calls; this template renders one per message");
      if (!a.calls(m, k)) return false;
      continue;
    }
    const bool trim = flags & (user ? kTrimUser : kTrimAssistant);
    const bool continues = !user && k > first && messages[k - 1].role == "assistant" && messages[k - 1].tool_calls.empty();
    if (continues) a.out.resize(a.out.size() - pieces[kAssistantSuffix].size());
    if (continues) a.out += pieces[kAssistantAfterAssistant];
    else if (!user) a.out += pieces[kAssistantPrefix];
    else if (first == 1 && k == 1) { if (!a.piece(kUserPrefixAfterSystem, kToolsUserPrefixAfterSystem)) return false; }
    else if (first == 0 && k == 0) { if (!a.piece(kUserPrefixFirst, kToolsUserPrefixFirst)) return false; }
    else a.out += pieces[kUserPrefix];
    if (!render_content(*this, m, trim, &body, err)) return false;
    a.out += body + pieces[user ? kUserSuffix : kAssistantSuffix];
  }
  if (add_generation_prompt) a.out += pieces[kGenerationPrompt];
  *prompt = std::move(a.out);
  return true;
}

}  // namespace saguaro
