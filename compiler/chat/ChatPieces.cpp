// Splits a chat template's output into pieces. Every message content is a sentinel (private-use characters around a
// tag), so the text between sentinels is what the template adds around each message:
//   [user]                      -> preamble + no_system + user_prefix_first, U, user_suffix (+ generation_prompt)
//   [user, assistant]           -> ..., A, assistant_suffix
//   [system, user, asst, user]  -> preamble + system_prefix, S, system_suffix + user_prefix_after_system, U,
//                                  user_suffix + assistant_prefix, A, assistant_suffix + user_prefix, U, user_suffix
//   [user, asst, asst, user]    -> ..., A, assistant_after_assistant, A, assistant_suffix + user_prefix, U, ...
// Whitespace stripping of contents is detected with padded contents, role alternation with a template that raises
// on [user, user]. Finally the pieces must reproduce the template's rendering of other conversations exactly.
//
// The tool features are found the same way, each from its own conversations and checked like the rest:
//   [user, asst, system, user]        -> the pieces around a later system message
//   [user, asst, tool, tool, user]    -> tool_prefix, tool_between, tool_suffix; the content printed raw, stripped or
//                                        as a JSON string, whichever reproduces padded contents
//   [user, asst with 2 calls, user]   -> call names are sentinels and arguments sample objects, found in the output
//                                        in each ToolArgsFormat; the content sits before the calls, after them or
//                                        nowhere (one call when the template raises on two)
//   the head pieces again with a sample tool list, which is found in them in each ToolListFormat and replaced by a
//   marker
// A feature whose pieces do not reproduce the template is left out (with a note saying why), and the runtime refuses
// conversations that need it.
//
// Media: a user content given as parts [text, image, text] gives the image piece between the texts (the same for
// audio); it is kept only when the pieces then reproduce other part layouts exactly, else left empty (the template
// takes no such media, and the runtime refuses it).
#include "ChatPieces.h"

#include <cstdio>
#include <map>

namespace saguaro::chat {
namespace {

const std::string kOpen = "\xEE\x80\x80";   // U+E000
const std::string kClose = "\xEE\x80\x81";  // U+E001
const std::string kPad = "\n \t";           // around contents when checking whitespace stripping

// Sample tools (OpenAI's function shape) and call arguments: enums, nested objects, arrays, nullable, empty
// parameters, quotes and newlines, so that every branch of the formats is compared with the template.
const char* const kSampleTools[] = {
    R"({"type": "function", "function": {"name": "get_weather", "description": "Current \"weather\"\nof a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "City name"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, "required": ["city"]}}})",
    R"({"type": "function", "function": {"name": "search", "description": "Search the web",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"},
        "filters": {"type": "object", "properties": {"site": {"type": "string"}}, "required": ["site"]},
        "Tags": {"type": "array", "items": {"type": "string"}}, "limit": {"type": "integer", "nullable": true}},
        "required": ["query"]}}})",
    R"({"type": "function", "function": {"name": "now", "description": "The time",
        "parameters": {"type": "object", "properties": {}}}})",
};
const char* const kSampleArguments[] = {
    R"({"city": "Paris", "days": 3})",
    R"({"query": "a \"quoted\" word\n", "limit": 2.5, "flags": [true, null], "Nested": {"b": 1, "a": "x"}})",
};
const char* const kSampleStringArguments = R"("{\"city\": \"Oslo\"}")";

struct Conversation {
  std::vector<ChatMessage> messages;
  std::vector<std::string> tools;
  std::string describe() const {
    std::string s = "[";
    for (size_t k = 0; k < messages.size(); ++k)
      s += (k ? ", " : "") + messages[k].role + (messages[k].tool_calls.empty() ? "" : " with tool calls");
    return s + "]" + (tools.empty() ? "" : " with " + std::to_string(tools.size()) + " tools");
  }
  // Everything the template sees of the conversation, each text length-prefixed: equal keys render equally.
  std::string key(bool gen) const {
    std::string k = gen ? "g" : "n";
    const auto add = [&k](const std::string& text) { k += std::to_string(text.size()) + ':' + text; };
    for (const ChatMessage& m : messages) {
      add(m.role), add(m.content), k += 'p' + std::to_string(m.parts.size());
      for (const ContentPart& part : m.parts) k += std::to_string(int(part.kind)), add(part.text);
      k += 'c' + std::to_string(m.tool_calls.size());
      for (const ToolCall& call : m.tool_calls) add(call.name), add(call.arguments);
    }
    for (const std::string& tool : tools) add(tool);
    return k;
  }
};

std::string core(size_t k, char role) { return kOpen + role + std::to_string(k) + kClose; }
std::string call_name(size_t k, size_t j) { return kOpen + "n" + std::to_string(k) + "_" + std::to_string(j) + kClose; }

// What a conversation holds besides its roles.
struct Shape {
  std::string roles;       // 's', 'u', 'a', 't' (tool), 'c' (assistant with calls), 'e' (calls, empty content)
  size_t tools = 0;        // sample tools in the list
  size_t calls = 2;        // calls per 'c' / 'e' message
  bool string_args = false;
};

// A conversation of `shape`; contents are unique sentinels, padded when `pad`.
Conversation conversation(const Shape& shape, bool pad) {
  Conversation c;
  for (size_t k = 0; k < shape.roles.size(); ++k) {
    const char r = shape.roles[k];
    const std::string role = r == 's' ? "system" : r == 'u' ? "user" : r == 't' ? "tool" : "assistant";
    const std::string text = r == 'e' ? "" : pad ? kPad + core(k, r) + kPad : core(k, r);
    ChatMessage m{role, text, {}};
    if (r == 'c' || r == 'e')
      for (size_t j = 0; j < shape.calls; ++j)
        m.tool_calls.push_back({call_name(k, j), shape.string_args ? kSampleStringArguments : kSampleArguments[j % 2]});
    c.messages.push_back(m);
  }
  for (size_t k = 0; k < shape.tools; ++k) c.tools.push_back(kSampleTools[k % 3]);
  return c;
}
Conversation conversation(const std::string& roles, bool pad) { return conversation(Shape{roles}, pad); }

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

bool starts_with(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }
bool ends_with(const std::string& s, const std::string& p) {
  return s.size() >= p.size() && s.compare(s.size() - p.size(), p.size(), p) == 0;
}

// A feature the pieces cannot reproduce: the note says why, and the feature stays out.
struct Unexpressible {
  std::string why;
};
[[noreturn]] void give_up(const std::string& why) { throw Unexpressible{why}; }

std::string cut_prefix(const std::string& s, const std::string& prefix, const char* what) {
  if (!starts_with(s, prefix)) give_up(std::string("the text does not start with the ") + what + ": \"" + show(s) + "\"");
  return s.substr(prefix.size());
}
std::string cut_suffix(const std::string& s, const std::string& suffix, const char* what) {
  if (!ends_with(s, suffix)) give_up(std::string("the text does not end with the ") + what + ": \"" + show(s) + "\"");
  return s.substr(0, s.size() - suffix.size());
}

// The pieces that open a conversation (with or without a tool list).
struct Head {
  std::string preamble, no_system, system_prefix, system_suffix, user_prefix_after_system, user_prefix_first;

  /// Stores the pieces in `slots` (their order here) of `pieces`.
  void store(const int (&slots)[6], std::string* pieces) const {
    const std::string* parts[6] = {&preamble, &no_system, &system_prefix, &system_suffix, &user_prefix_after_system,
                                   &user_prefix_first};
    for (int k = 0; k < 6; ++k) pieces[slots[k]] = *parts[k];
  }
};
constexpr int kPlainHead[6] = {ChatTemplate::kPreamble,     ChatTemplate::kNoSystem,
                               ChatTemplate::kSystemPrefix, ChatTemplate::kSystemSuffix,
                               ChatTemplate::kUserPrefixAfterSystem, ChatTemplate::kUserPrefixFirst};
constexpr int kToolsHead[6] = {ChatTemplate::kToolsPreamble,     ChatTemplate::kToolsNoSystem,
                               ChatTemplate::kToolsSystemPrefix, ChatTemplate::kToolsSystemSuffix,
                               ChatTemplate::kToolsUserPrefixAfterSystem, ChatTemplate::kToolsUserPrefixFirst};

class Decomposer {
 public:
  Decomposer(const Template& t, const ChatTemplateOptions& o) : tmpl_(t), opts_(o) {}

  ChatTemplate run(std::vector<std::string>* notes) {
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
    head(p[ChatTemplate::kUserPrefix], {}).store(kPlainHead, p);

    // Consecutive assistant messages: what stands between them (Gemma 4 continues one model turn); templates that
    // require alternating roles refuse them, and so does the runtime.
    p[ChatTemplate::kAssistantAfterAssistant] = p[ChatTemplate::kAssistantSuffix] + p[ChatTemplate::kAssistantPrefix];
    if (!raises(conversation("uaau", false)))  // a user message last, as for assistant_prefix (Qwen3 differs)
      p[ChatTemplate::kAssistantAfterAssistant] = split(conversation("uaau", false))[2];
    ct.flags = trim_flags(ct) | (raises(conversation("uu", false)) ? ChatTemplate::kAlternate : 0u);
    std::vector<Shape> shapes;
    for (const char* roles : {"suau", "suauau", "uau", "u", "su", "uauau"}) shapes.push_back({roles});
    if (!(ct.flags & ChatTemplate::kAlternate))
      for (const char* roles : {"uuaau", "sau", "suu", "suaau", "uaaau"}) shapes.push_back({roles});
    const std::string problem = mismatch(ct, shapes);
    if (!problem.empty()) inexpressible(problem);

    try_feature(&ct, "system messages after the first", notes, [&](ChatTemplate* t) { later_system(t); });
    try_feature(&ct, "tool messages", notes, [&](ChatTemplate* t) { tool_messages(t); });
    try_feature(&ct, "tool calls", notes, [&](ChatTemplate* t) { tool_calls(t); });
    try_feature(&ct, "the tool list", notes, [&](ChatTemplate* t) { tool_list(t); });
    media_piece(&ct, ContentPart::kImage, ChatTemplate::kImage);
    media_piece(&ct, ContentPart::kAudio, ChatTemplate::kAudio);
    return ct;
  }

 private:
  // The template's text for `c`. The features' searches compare the same conversations with many candidate pieces,
  // so each rendering is kept (the template's variables, the date included, are fixed for the whole compile).
  std::string render(const Conversation& c, bool gen) const {
    const std::string key = c.key(gen);
    if (const auto it = rendered_.find(key); it != rendered_.end()) return it->second;
    try {
      return rendered_[key] = tmpl_.render(chat_variables(c.messages, c.tools, gen, opts_));
    } catch (const TemplateError& e) {
      throw TemplateError(std::string(e.what()) + " (rendering a conversation " + c.describe() + ")");
    }
  }

  bool raises(const Conversation& c) const {
    try {
      tmpl_.render(chat_variables(c.messages, c.tools, true, opts_));
      return false;
    } catch (const TemplateRaise&) {
      return true;
    }
  }

  // Runs `find` on a copy of the pieces and keeps the copy when it succeeds; otherwise notes why the feature is out.
  template <typename Find>
  void try_feature(ChatTemplate* ct, const char* feature, std::vector<std::string>* notes, Find find) const {
    ChatTemplate t = *ct;
    try {
      find(&t);
      *ct = t;
    } catch (const Unexpressible& u) {
      if (notes) notes->push_back(std::string(feature) + ": " + u.why);
    } catch (const std::runtime_error& e) {  // TemplateError, or an EvalError of a template that expects other data
      if (notes) notes->push_back(std::string(feature) + ": " + e.what());
    }
  }

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

  // The head pieces with `tools` in the list: from [user] and [system, user, assistant, user].
  Head head(const std::string& up, const std::vector<std::string>& tools) const {
    Conversation one = conversation("u", false), g4 = conversation("suau", false);
    one.tools = g4.tools = tools;
    const std::string first = split(one)[0];
    const std::vector<std::string> g = split(g4);
    Head h;
    const bool up_last = ends_with(first, up);
    const std::string head = up_last ? first.substr(0, first.size() - up.size()) : first;
    size_t common = 0;
    while (common < head.size() && common < g[0].size() && head[common] == g[0][common]) ++common;
    h.preamble = head.substr(0, common);
    h.no_system = up_last ? head.substr(common) : "";
    h.user_prefix_first = up_last ? up : head.substr(common);  // the first user message opens differently (Llama 3.1's tools)
    h.system_prefix = g[0].substr(common);
    const bool ends_with_up = ends_with(g[1], up);
    h.system_suffix = ends_with_up ? g[1].substr(0, g[1].size() - up.size()) : g[1];
    h.user_prefix_after_system = ends_with_up ? up : "";
    return h;
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
    if (!ct.apply(c.messages, c.tools, gen, false, &prompt, &err)) return "(" + err + ")";
    return prompt;
  }

  // "" when the pieces reproduce the template on every shape (padded contents, with and without generation
  // prompt), else the first difference.
  std::string mismatch(const ChatTemplate& ct, const std::vector<Shape>& shapes) const {
    for (const Shape& shape : shapes)
      for (bool gen : {true, false}) {
        const Conversation c = conversation(shape, true);
        const std::string want = render(c, gen), got = assemble(ct, c, gen);
        if (want == got) continue;
        size_t at = 0;
        while (at < want.size() && at < got.size() && want[at] == got[at]) ++at;
        const size_t from = at > 40 ? at - 40 : 0;
        return "for " + c.describe() + (gen ? " with" : " without") + " generation prompt the template gives \"" +
               show(want.substr(from, 80)) + "\" but the pieces give \"" + show(got.substr(from, 80)) + "\" (byte " +
               std::to_string(at) + ")";
      }
    return "";
  }

  void check(const ChatTemplate& ct, const std::vector<Shape>& shapes) const {
    const std::string problem = mismatch(ct, shapes);
    if (!problem.empty()) give_up(problem);
  }

  // The shapes every tool feature found so far must still reproduce, plus `extra`.
  std::vector<Shape> tool_shapes(const ChatTemplate& ct, std::vector<Shape> extra) const {
    const size_t calls = ct.flags & ChatTemplate::kSingleToolCall ? 1 : 2;
    if (ct.flags & ChatTemplate::kSystemAnywhere) extra.push_back({"suasu"});
    if (ct.flags & ChatTemplate::kToolMessages) extra.push_back({"suattu"});
    if (ct.flags & ChatTemplate::kToolCalls)
      for (const char* roles : {"sucu", "ueu", "ucau"}) extra.push_back({roles, 0, calls});
    if ((ct.flags & ChatTemplate::kToolCalls) && (ct.flags & ChatTemplate::kToolMessages))
      for (const char* roles : {"ucttcu", "uctteu"}) extra.push_back({roles, 0, calls});
    return extra;
  }

  void later_system(ChatTemplate* ct) const {
    const Conversation c = conversation("uasu", false);
    if (raises(c)) give_up("the template raises on [user, assistant, system, user]");
    const std::vector<std::string> texts = split(c);
    std::string* p = ct->pieces;
    p[ChatTemplate::kSystemLaterPrefix] = cut_prefix(texts[2], p[ChatTemplate::kAssistantSuffix], "assistant suffix");
    p[ChatTemplate::kSystemLaterSuffix] = cut_suffix(texts[3], p[ChatTemplate::kUserPrefix], "user prefix");
    ct->flags |= ChatTemplate::kSystemAnywhere;
    check(*ct, tool_shapes(*ct, {{"uasu"}, {"suasuasu"}, {"uasau"}}));
  }

  void tool_messages(ChatTemplate* ct) const {
    const Conversation c = conversation("uattu", false);
    if (raises(c)) give_up("the template raises on [user, assistant, tool, tool, user]");
    const std::vector<std::string> texts = split(c);
    std::string* p = ct->pieces;
    const std::string prefix = cut_prefix(texts[2], p[ChatTemplate::kAssistantSuffix], "assistant suffix");
    const std::string suffix = cut_suffix(texts[4], p[ChatTemplate::kUserPrefix], "user prefix");
    ct->flags |= ChatTemplate::kToolMessages;
    std::string why;
    for (auto format : {ToolContentFormat::kRaw, ToolContentFormat::kTrim, ToolContentFormat::kJson}) {
      ChatTemplate t = *ct;
      t.tool_content_format = format;
      t.pieces[ChatTemplate::kToolPrefix] = prefix;
      t.pieces[ChatTemplate::kToolBetween] = texts[3];
      t.pieces[ChatTemplate::kToolSuffix] = suffix;
      if (format == ToolContentFormat::kJson) {  // the quotes around the sentinels belong to the content
        if (!ends_with(prefix, "\"") || !starts_with(suffix, "\"") || texts[3].size() < 2) continue;
        t.pieces[ChatTemplate::kToolPrefix].pop_back();
        t.pieces[ChatTemplate::kToolBetween] = texts[3].substr(1, texts[3].size() - 2);
        t.pieces[ChatTemplate::kToolSuffix].erase(0, 1);
      }
      why = mismatch(t, tool_shapes(t, {{"uattu"}, {"uatu"}, {"uatatu"}}));
      if (why.empty()) return void(*ct = t);
    }
    give_up(why);
  }

  void tool_calls(ChatTemplate* ct) const {
    Shape shape{"ucu", 0, 2};
    if (raises(conversation(shape, false))) {
      shape.calls = 1;
      ct->flags |= ChatTemplate::kSingleToolCall;
    }
    const Conversation c = conversation(shape, false);
    if (raises(c)) give_up("the template raises on an assistant message with a tool call");
    std::string* p = ct->pieces;
    // The assistant message's text: between the first user message's suffix and the last one's prefix.
    const std::string out = render(c, false), u0 = core(0, 'u'), u2 = core(2, 'u'), a = core(1, 'c');
    const size_t from = out.find(u0) + u0.size(), to = out.find(u2);
    if (from < u0.size() || to == std::string::npos || to < from) give_up("the user messages around the calls are lost");
    const std::string text = cut_suffix(cut_prefix(out.substr(from, to - from), p[ChatTemplate::kUserSuffix], "user suffix"),
                                        p[ChatTemplate::kUserPrefix], "user prefix");
    std::string why = "no argument format matches: \"" + show(text) + "\"";
    for (auto format : {ToolArgsFormat::kJson, ToolArgsFormat::kGemma4}) {
      // Each call's name and arguments in order; the content before the first or after the last, or nowhere.
      std::vector<size_t> name_at, args_at, args_len;
      size_t pos = 0;
      for (const ToolCall& call : c.messages[1].tool_calls) {
        std::string args, err;
        if (!format_tool_arguments(format, false, call.arguments, &args, &err)) give_up(err);
        const size_t n = text.find(call.name, pos);
        const size_t g = n == std::string::npos ? n : text.find(args, n + call.name.size());
        if (g == std::string::npos) break;
        name_at.push_back(n), args_at.push_back(g), args_len.push_back(args.size());
        pos = g + args.size();
      }
      if (name_at.size() != shape.calls) continue;
      ChatTemplate t = *ct;
      std::string* q = t.pieces;
      t.args_format = format;
      t.flags |= ChatTemplate::kToolCalls;
      const size_t content_at = text.find(a), end = args_at.back() + args_len.back();
      q[ChatTemplate::kCallMid] = text.substr(name_at[0] + c.messages[1].tool_calls[0].name.size(),
                                              args_at[0] - name_at[0] - c.messages[1].tool_calls[0].name.size());
      if (shape.calls > 1) q[ChatTemplate::kCallBetween] = text.substr(args_at[0] + args_len[0], name_at[1] - args_at[0] - args_len[0]);
      if (content_at != std::string::npos && content_at < name_at[0]) {
        q[ChatTemplate::kCallsPrefix] = text.substr(0, content_at);
        // Without content the text up to the first name is calls_prefix + call_open.
        Shape empty = shape;
        empty.roles = "ueu";
        const Conversation e = conversation(empty, false);
        const std::string eout = render(e, false);
        const size_t efrom = eout.find(u0) + u0.size() + p[ChatTemplate::kUserSuffix].size();
        const size_t ename = eout.find(e.messages[1].tool_calls[0].name, efrom);
        if (ename == std::string::npos) continue;
        q[ChatTemplate::kCallOpen] = cut_prefix(eout.substr(efrom, ename - efrom), q[ChatTemplate::kCallsPrefix], "calls prefix");
        q[ChatTemplate::kCallsContentSep] =
            cut_suffix(text.substr(content_at + a.size(), name_at[0] - content_at - a.size()), q[ChatTemplate::kCallOpen], "call opening");
        q[ChatTemplate::kCallsEnd] = text.substr(end);
      } else {
        q[ChatTemplate::kCallsPrefix] = text.substr(0, name_at[0]);
        if (content_at == std::string::npos) {
          t.flags |= ChatTemplate::kContentDroppedWithCalls;
          q[ChatTemplate::kCallsEnd] = text.substr(end);
        } else {
          t.flags |= ChatTemplate::kContentAfterCalls;
          q[ChatTemplate::kCallsEnd] = text.substr(end, content_at - end);
          q[ChatTemplate::kCallsSuffix] = text.substr(content_at + a.size());
        }
      }
      // String arguments (OpenAI's form) are printed as they are or as a JSON string.
      for (uint32_t as_json : {0u, uint32_t(ChatTemplate::kStringArgumentsAsJson)}) {
        ChatTemplate s = t;
        s.flags |= as_json;
        why = mismatch(s, tool_shapes(s, {{"ucu", 0, shape.calls}, {"ucu", 0, shape.calls, true}, {"ueu", 0, shape.calls},
                                           {"ucucu", 0, shape.calls}}));
        if (why.empty()) return void(*ct = s);
      }
    }
    give_up(why);
  }

  void tool_list(ChatTemplate* ct) const {
    const Conversation with = conversation(Shape{"u", 2}, false);
    if (render(with, true) == render(conversation("u", false), true)) give_up("the template ignores the tools");
    const Head h = head(ct->pieces[ChatTemplate::kUserPrefix], with.tools);
    std::string why = "no tool format matches";
    for (auto format : {ToolListFormat::kJson, ToolListFormat::kJsonIndent4, ToolListFormat::kGemma4, ToolListFormat::kName}) {
      std::string first, second, err;
      if (!format_tool(format, with.tools[0], &first, &err) || !format_tool(format, with.tools[1], &second, &err))
        give_up(err);
      ChatTemplate t = *ct;
      std::string* q = t.pieces;
      h.store(kToolsHead, q);
      bool found = false;
      for (int k : kToolsHead) {
        const size_t at = q[k].find(first), next = at == std::string::npos ? at : q[k].find(second, at + first.size());
        if (next == std::string::npos) continue;
        q[ChatTemplate::kToolsSeparator] = q[k].substr(at + first.size(), next - at - first.size());
        q[k].replace(at, next + second.size() - at, ChatTemplate::kToolsMarker);
        found = true;
      }
      if (!found) continue;
      t.tools_format = format;
      t.flags |= ChatTemplate::kTools;
      const std::string marker = ChatTemplate::kToolsMarker;
      if (q[ChatTemplate::kToolsUserPrefixFirst].find(marker) != std::string::npos ||
          q[ChatTemplate::kToolsUserPrefixAfterSystem].find(marker) != std::string::npos ||
          (q[ChatTemplate::kToolsSystemSuffix].find(marker) != std::string::npos &&
           q[ChatTemplate::kToolsUserPrefixAfterSystem].empty()))
        t.flags |= ChatTemplate::kToolsNeedUserFirst;
      std::vector<Shape> shapes;
      for (size_t n : {1, 2, 3})
        for (const char* roles : {"u", "su", "suau", "uau"}) shapes.push_back({roles, n});
      for (Shape& s : tool_shapes(t, {})) shapes.push_back(s), shapes.back().tools = 3;
      why = mismatch(t, shapes);
      if (why.empty()) return void(*ct = t);
    }
    give_up(why);
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
      const std::string out = tmpl_.render(chat_variables(with_parts("tmt", kind).messages, {}, true, opts_));
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
  mutable std::map<std::string, std::string> rendered_;  // render()'s texts by Conversation::key
};

}  // namespace

ChatTemplate decompose(const Template& tmpl, const ChatTemplateOptions& opts, std::vector<std::string>* notes) {
  return Decomposer(tmpl, opts).run(notes);
}

}  // namespace saguaro::chat
