// Splits a chat template's output into pieces. Every message content is a sentinel (private-use characters around a
// tag), so the text between sentinels is what the template adds around each message:
//   [user]                      -> preamble + no_system + user_prefix, U, user_suffix (+ generation_prompt)
//   [user, assistant]           -> ..., A, assistant_suffix
//   [system, user, asst, user]  -> preamble + system_prefix, S, system_suffix + user_prefix_after_system, U,
//                                  user_suffix + assistant_prefix, A, assistant_suffix + user_prefix, U, user_suffix
//   [user, asst, asst, user]    -> ..., A, assistant_after_assistant, A, assistant_suffix + user_prefix, U, ...
// Whitespace stripping of contents is detected with padded contents, role alternation with a template that raises
// on [user, user]. Finally the pieces must reproduce the template's rendering of other conversations exactly.
// Media: a user content given as parts [text, image, text] gives the image piece between the texts (the same for
// audio); it is kept only when the pieces then reproduce other part layouts exactly, else left empty (the template
// takes no such media, and the runtime refuses it).
#include "ChatPieces.h"

#include <cstdio>

namespace saguaro::chat {
namespace {

const std::string kOpen = "\xEE\x80\x80";   // U+E000
const std::string kClose = "\xEE\x80\x81";  // U+E001
const std::string kPad = "\n \t";           // around contents when checking whitespace stripping

struct Conversation {
  std::vector<ChatMessage> messages;
  std::string describe() const {
    std::string s = "[";
    for (size_t k = 0; k < messages.size(); ++k) s += (k ? ", " : "") + messages[k].role;
    return s + "]";
  }
};

// A conversation with the given roles ('s', 'u', 'a'); contents are unique sentinels, padded when `pad`.
Conversation conversation(const std::string& roles, bool pad) {
  Conversation c;
  for (size_t k = 0; k < roles.size(); ++k) {
    const std::string role = roles[k] == 's' ? "system" : roles[k] == 'u' ? "user" : "assistant";
    const std::string core = kOpen + roles[k] + std::to_string(k) + kClose;
    c.messages.push_back({role, pad ? kPad + core + kPad : core});
  }
  return c;
}

[[noreturn]] void inexpressible(const std::string& why) {
  throw TemplateError("chat_template cannot be expressed as per-role pieces: " + why +
                      " (pass --chat-template FILE with a simpler template)");
}

// Printable form of template output for error messages.
std::string show(const std::string& s) {
  std::string out;
  for (size_t k = 0; k < s.size(); ++k) {
    if (s.compare(k, kOpen.size(), kOpen) == 0) out += "<<", k += kOpen.size() - 1;
    else if (s.compare(k, kClose.size(), kClose) == 0) out += ">>", k += kClose.size() - 1;
    else if (s[k] == '\n') out += "\\n";
    else if (s[k] == '\t') out += "\\t";
    else out += s[k];
  }
  return out;
}

class Decomposer {
 public:
  Decomposer(const Template& t, const ChatTemplateOptions& o) : tmpl_(t), opts_(o) {}

  ChatTemplate run() {
    ChatTemplate ct;
    std::string* p = ct.pieces;
    p[ChatTemplate::kBos] = opts_.bos_token;

    const std::vector<std::string> one = split(conversation("u", false));  // head, user_suffix
    const std::string with_gen = render(conversation("u", false), true);
    const std::string no_gen = one[0] + core(0, 'u') + one[1];
    if (with_gen.compare(0, no_gen.size(), no_gen) != 0)
      inexpressible("add_generation_prompt changes the text before the generation prompt");
    p[ChatTemplate::kGenerationPrompt] = with_gen.substr(no_gen.size());
    p[ChatTemplate::kUserSuffix] = one[1];

    const std::vector<std::string> ua = split(conversation("ua", false));
    if (ua[0] != one[0] || ua[1].compare(0, one[1].size(), one[1]) != 0)
      inexpressible("a following assistant message changes the text of the user message before it");
    p[ChatTemplate::kAssistantSuffix] = ua[2];

    const std::vector<std::string> g = split(conversation("suau", false));
    if (g[4] != p[ChatTemplate::kUserSuffix]) inexpressible("the last user message ends differently with a system message");
    p[ChatTemplate::kAssistantPrefix] = strip_prefix(g[2], p[ChatTemplate::kUserSuffix], "user suffix");
    p[ChatTemplate::kUserPrefix] = strip_prefix(g[3], p[ChatTemplate::kAssistantSuffix], "assistant suffix");
    const std::string& up = p[ChatTemplate::kUserPrefix];
    if (one[0].size() < up.size() || one[0].compare(one[0].size() - up.size(), up.size(), up) != 0)
      inexpressible("the first user message starts differently from later ones");
    const std::string head = one[0].substr(0, one[0].size() - up.size());  // preamble + no_system
    size_t common = 0;
    while (common < head.size() && common < g[0].size() && head[common] == g[0][common]) ++common;
    p[ChatTemplate::kPreamble] = head.substr(0, common);
    p[ChatTemplate::kNoSystem] = head.substr(common);
    p[ChatTemplate::kSystemPrefix] = g[0].substr(common);
    const bool ends_with_up = g[1].size() >= up.size() && g[1].compare(g[1].size() - up.size(), up.size(), up) == 0;
    p[ChatTemplate::kSystemSuffix] = ends_with_up ? g[1].substr(0, g[1].size() - up.size()) : g[1];
    p[ChatTemplate::kUserPrefixAfterSystem] = ends_with_up ? up : "";

    // Consecutive assistant messages: what stands between them (Gemma 4 continues one model turn); templates that
    // require alternating roles refuse them, and so does the runtime.
    p[ChatTemplate::kAssistantAfterAssistant] = p[ChatTemplate::kAssistantSuffix] + p[ChatTemplate::kAssistantPrefix];
    if (!raises(conversation("uaau", false)))  // a user message last, as for assistant_prefix (Qwen3 differs)
      p[ChatTemplate::kAssistantAfterAssistant] = split(conversation("uaau", false))[2];
    ct.flags = trim_flags(ct) | (raises(conversation("uu", false)) ? ChatTemplate::kAlternate : 0u);
    verify(ct);
    media_piece(&ct, ContentPart::kImage, ChatTemplate::kImage);
    media_piece(&ct, ContentPart::kAudio, ChatTemplate::kAudio);
    return ct;
  }

 private:
  std::string render(const Conversation& c, bool gen) const {
    try {
      return tmpl_.render(chat_variables(c.messages, gen, opts_));
    } catch (const TemplateError& e) {
      throw TemplateError(std::string(e.what()) + " (rendering a conversation " + c.describe() + ")");
    }
  }

  bool raises(const Conversation& c) const {
    try {
      tmpl_.render(chat_variables(c.messages, true, opts_));
      return false;
    } catch (const TemplateRaise&) {
      return true;
    }
  }

  static std::string core(size_t k, char role) { return kOpen + role + std::to_string(k) + kClose; }

  // The rendering of `c` (without generation prompt) cut at each content: texts.size() == messages + 1.
  std::vector<std::string> split(const Conversation& c) const {
    const std::string out = render(c, false);
    std::vector<std::string> texts;
    size_t pos = 0;
    for (size_t k = 0; k < c.messages.size(); ++k) {
      const std::string& content = c.messages[k].content;
      const size_t at = out.find(content, pos);
      if (at == std::string::npos || out.find(content, at + 1) != std::string::npos)
        inexpressible("the content of message " + std::to_string(k) + " (" + c.messages[k].role +
                      ") does not appear exactly once, in order, in the rendering of " + c.describe() + ": \"" +
                      show(out) + "\"");
      texts.push_back(out.substr(pos, at - pos));
      pos = at + content.size();
    }
    texts.push_back(out.substr(pos));
    return texts;
  }

  static std::string strip_prefix(const std::string& s, const std::string& prefix, const char* what) {
    if (s.compare(0, prefix.size(), prefix) != 0)
      inexpressible(std::string("text between messages does not start with the ") + what + ": \"" + show(s) + "\"");
    return s.substr(prefix.size());
  }

  // Which roles' contents the template strips: the flags whose assembly matches a rendering with padded contents.
  uint32_t trim_flags(ChatTemplate ct) const {
    const Conversation c = conversation("suau", true);
    const std::string want = render(c, true);
    for (uint32_t f = 0; f < 8; ++f) {
      ct.flags = f;
      if (assemble(ct, c, true) == want) return f;
    }
    inexpressible("the template changes message contents beyond stripping whitespace: \"" + show(want) + "\"");
  }

  static std::string assemble(const ChatTemplate& ct, const Conversation& c, bool gen) {
    std::string prompt, err;
    if (!ct.apply(c.messages, gen, false, &prompt, &err)) return "(" + err + ")";
    return prompt;
  }

  void verify(const ChatTemplate& ct) const {
    std::vector<std::string> shapes = {"suau", "suauau", "uau", "u", "su", "uauau"};
    if (!(ct.flags & ChatTemplate::kAlternate)) shapes.insert(shapes.end(), {"uuaau", "sau", "suu", "suaau", "uaaau"});
    for (const std::string& roles : shapes)
      for (bool gen : {true, false}) {
        const Conversation c = conversation(roles, true);
        const std::string want = render(c, gen), got = assemble(ct, c, gen);
        if (want == got) continue;
        size_t at = 0;
        while (at < want.size() && at < got.size() && want[at] == got[at]) ++at;
        const size_t from = at > 40 ? at - 40 : 0;
        inexpressible("for " + c.describe() + (gen ? " with" : " without") + " generation prompt the template gives \"" +
                      show(want.substr(from, 80)) + "\" but the pieces give \"" + show(got.substr(from, 80)) +
                      "\" (byte " + std::to_string(at) + ")");
      }
  }

  // A conversation [system, user] whose user content is parts: 't' a padded sentinel text, 'm' a `kind` item.
  static Conversation with_parts(const std::string& layout, ContentPart::Kind kind) {
    Conversation c = conversation("su", true);
    ChatMessage& user = c.messages[1];
    for (size_t k = 0; k < layout.size(); ++k) {
      if (layout[k] == 'm') user.parts.push_back({kind, ""});
      else user.parts.push_back({ContentPart::kText, kPad + core(k, 't') + kPad});
    }
    return c;
  }

  // Sets ct->pieces[piece] to what a `kind` item renders as, when that one text reproduces the template's rendering
  // of every part layout below; leaves it empty when the template raises on or mis-renders media.
  void media_piece(ChatTemplate* ct, ContentPart::Kind kind, ChatTemplate::Piece piece) const {
    std::string& text = ct->pieces[piece];
    try {
      const std::string out = tmpl_.render(chat_variables(with_parts("tmt", kind).messages, true, opts_));
      const size_t a = out.find(core(0, 't')), b = out.find(core(2, 't'));
      if (a == std::string::npos || b == std::string::npos || b < a) return;
      const std::string between = out.substr(a + core(0, 't').size(), b - a - core(0, 't').size());
      const uint32_t trim = ct->flags & ChatTemplate::kTrimUser;
      // Between the sentinels stand the padding the template kept around them and the item itself.
      const size_t pad = trim ? 0 : kPad.size();
      if (between.size() < 2 * pad) return;
      text = between.substr(pad, between.size() - 2 * pad);
      for (const char* layout : {"tmt", "mt", "tm", "m", "mm", "tmtm"})
        for (bool gen : {true, false}) {
          const Conversation c = with_parts(layout, kind);
          if (render(c, gen) != assemble(*ct, c, gen)) return text.clear();
        }
    } catch (const std::runtime_error&) {  // TemplateError, or an EvalError of a template that expects a string
      text.clear();
    }
  }

  const Template& tmpl_;
  const ChatTemplateOptions& opts_;
};

}  // namespace

ChatTemplate decompose(const Template& tmpl, const ChatTemplateOptions& opts) { return Decomposer(tmpl, opts).run(); }

}  // namespace saguaro::chat
