// Chat template pieces: the `chat.template` tensor (kind "chat_template", dtype U8), written by
// compiler/chat/ from a Hugging Face chat_template and applied here with plain string concatenation.
//
// Format, little endian:
//   char[4]  magic   "SGCT"
//   uint32   version 3
//   uint32   flags   bit 0/1/2: strip whitespace around system/user/assistant contents (Python str.strip());
//                    bit 3: after an optional first system message, roles alternate user, assistant, user, ...;
//                    other bits must be 0
//   uint32   count   14
//   count x { uint32 length; length bytes of UTF-8 }, in ChatTemplate::Piece order:
//            bos, preamble, no_system, system_prefix, system_suffix, user_prefix, user_prefix_after_system,
//            user_suffix, assistant_prefix, assistant_suffix, generation_prompt, assistant_after_assistant,
//            image, audio
//   nothing after the last piece.
//
// A prompt is: preamble (without a leading `bos` when the tokenizer adds BOS itself), then either
// system_prefix + content + system_suffix for a first system message or no_system, then per message
// role prefix (user_prefix_after_system for a user message right after the system message) + content + suffix,
// then generation_prompt when asked. An assistant message right after another one replaces that one's suffix and its
// own prefix with assistant_after_assistant. A content given as parts is its parts in order: each text (stripped when
// its role's contents are) and the image or audio piece for each media item; the whole is not stripped again.
#include "saguaro/chat_template.h"

#include <cstring>

namespace saguaro {
namespace {

constexpr char kMagic[4] = {'S', 'G', 'C', 'T'};
constexpr uint32_t kVersion = 3;

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

// Python's str.strip() on UTF-8 text; bytes that are not valid UTF-8 stop the stripping.
std::string strip(const std::string& s) {
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

}  // namespace

namespace {

// A message's content as the template renders it: the content, or its parts joined.
bool render_content(const ChatTemplate& t, const ChatMessage& m, bool trim, std::string* out, std::string* err) {
  if (m.parts.empty()) return *out = trim ? strip(m.content) : m.content, true;
  out->clear();
  for (const ContentPart& p : m.parts) {
    if (p.kind == ContentPart::kText) {
      *out += trim ? strip(p.text) : p.text;
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
  if (!p || bytes < 16) return *err = "chat.template: truncated header", false;
  if (std::memcmp(p, kMagic, 4) != 0) return *err = "chat.template: bad magic (expected \"SGCT\")", false;
  if (read_u32(p + 4) != kVersion)
    return *err = "chat.template: unsupported version " + std::to_string(read_u32(p + 4)), false;
  ChatTemplate t;
  t.flags = read_u32(p + 8);
  if (t.flags & ~uint32_t(kKnownFlags)) return *err = "chat.template: unknown flags " + std::to_string(t.flags), false;
  if (read_u32(p + 12) != kNumPieces)
    return *err = "chat.template: expected " + std::to_string(int(kNumPieces)) + " pieces, found " +
                  std::to_string(read_u32(p + 12)),
           false;
  uint64_t pos = 16;
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
  write_u32(&out, kNumPieces);
  for (const std::string& s : pieces) {
    write_u32(&out, static_cast<uint32_t>(s.size()));
    out.insert(out.end(), s.begin(), s.end());
  }
  return out;
}

bool ChatTemplate::apply(const std::vector<ChatMessage>& messages, bool add_generation_prompt, bool skip_bos,
                         std::string* prompt, std::string* err) const {
  if (messages.empty()) return *err = "chat template: no messages", false;
  const std::string& bos = pieces[kBos];
  const std::string& pre = pieces[kPreamble];
  std::string out = skip_bos && !bos.empty() && pre.compare(0, bos.size(), bos) == 0 ? pre.substr(bos.size()) : pre;
  size_t first = 0;
  std::string body;
  if (messages[0].role == "system") {
    if (!render_content(*this, messages[0], flags & kTrimSystem, &body, err)) return false;
    out += pieces[kSystemPrefix] + body + pieces[kSystemSuffix];
    first = 1;
  } else {
    out += pieces[kNoSystem];
  }
  for (size_t k = first; k < messages.size(); ++k) {
    const ChatMessage& m = messages[k];
    const bool user = m.role == "user";
    if (!user && m.role != "assistant") {
      return *err = m.role == "system" ? "chat template: a system message must be the first message"
                                       : "chat template: unsupported role '" + m.role + "'",
             false;
    }
    if ((flags & kAlternate) && user != ((k - first) % 2 == 0))
      return *err = "chat template: roles must alternate user/assistant/user/... after the system message", false;
    const bool trim = flags & (user ? kTrimUser : kTrimAssistant);
    const bool continues = !user && k > first && messages[k - 1].role == "assistant";
    if (continues) out.resize(out.size() - pieces[kAssistantSuffix].size());
    const std::string& prefix = continues ? pieces[kAssistantAfterAssistant]
                                : !user   ? pieces[kAssistantPrefix]
                                : (first == 1 && k == 1) ? pieces[kUserPrefixAfterSystem] : pieces[kUserPrefix];
    if (!render_content(*this, m, trim, &body, err)) return false;
    out += prefix + body + pieces[user ? kUserSuffix : kAssistantSuffix];
  }
  if (add_generation_prompt) out += pieces[kGenerationPrompt];
  *prompt = std::move(out);
  return true;
}

}  // namespace saguaro
