// Compiled chat template: per-role prefix/suffix pieces from the `chat.template` tensor, applied without a
// template engine; tool data (the tool list, tool-call arguments, tool results) is printed by the formats of
// chat_tool_format.h. The binary format is described at the top of chat_template.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "saguaro/chat_tool_format.h"

namespace saguaro {

/// One item of a message's content given as parts (OpenAI content parts): text, or where an image or a clip goes.
struct ContentPart {
  enum Kind { kText, kImage, kAudio };
  Kind kind = kText;
  std::string text;  // kText only
};

/// One call of an assistant message's OpenAI `tool_calls`.
struct ToolCall {
  std::string name;
  std::string arguments;  // JSON text of `function.arguments`: a string (OpenAI's form) or an object
};

/// One OpenAI-style message.
struct ChatMessage {
  std::string role;  // "system", "user", "assistant" or "tool"
  std::string content;
  std::vector<ContentPart> parts;    // when not empty, the content as parts (`content` is then unused)
  std::vector<ToolCall> tool_calls;  // assistant messages only
};

struct ChatTemplate {
  enum Piece {
    kBos,                    // the BOS token text the template was compiled with ("" when none)
    kPreamble,               // what every prompt starts with (e.g. BOS)
    kNoSystem,               // added after the preamble when the first message is not a system message
    kSystemPrefix,
    kSystemSuffix,
    kUserPrefix,
    kUserPrefixAfterSystem,  // a user message right after the system message (Gemma folds the system text in)
    kUserSuffix,
    kAssistantPrefix,
    kAssistantSuffix,
    kGenerationPrompt,
    kAssistantAfterAssistant,  // between two consecutive assistant contents, for assistant_suffix + assistant_prefix
                               // (Gemma 4 continues one model turn)
    kImage,                    // what an image item of a content list renders as ("" when the template has none)
    kAudio,                    // the same for an audio item
    kUserPrefixFirst,          // a user message that opens the conversation (no system message)
    kSystemLaterPrefix,        // a system message that is not the first message
    kSystemLaterSuffix,
    kToolPrefix,               // before the first of consecutive tool messages
    kToolBetween,              // between two consecutive tool messages' contents
    kToolSuffix,               // after the last of consecutive tool messages
    kCallsPrefix,              // an assistant message with tool calls: up to its content or first call
    kCallsContentSep,          // between a non-empty content and the first call (content before the calls)
    kCallOpen,                 // before the first call's name
    kCallMid,                  // between a call's name and its arguments
    kCallBetween,              // between a call's arguments and the next call's name
    kCallsEnd,                 // after the last call's arguments (up to the content when it follows the calls)
    kCallsSuffix,              // after the content when it follows the calls
    kToolsSeparator,           // between two tools of the tool list
    // With a tool list these replace the pieces of the same name; the list stands where kToolsMarker is.
    kToolsPreamble,
    kToolsNoSystem,
    kToolsSystemPrefix,
    kToolsSystemSuffix,
    kToolsUserPrefixAfterSystem,
    kToolsUserPrefixFirst,
    kNumPieces
  };
  enum Flag : uint32_t {
    kTrimSystem = 1,     // the template strips whitespace around system contents (Python str.strip())
    kTrimUser = 2,
    kTrimAssistant = 4,
    kAlternate = 8,      // after an optional system message, roles must alternate user, assistant, user, ...
    kSystemAnywhere = 16,        // system messages after the first one are rendered (kSystemLater*)
    kToolMessages = 32,          // "tool" messages are rendered (kTool*)
    kToolCalls = 64,             // assistant tool calls are rendered (kCalls*, kCall*)
    kSingleToolCall = 128,       // ... at most one per message (the template raises on more)
    kStringArgumentsAsJson = 256,  // string arguments are printed as JSON string literals (else as they are)
    kContentAfterCalls = 512,    // an assistant message's content follows its calls (else it precedes them)
    kContentDroppedWithCalls = 1024,  // an assistant message with calls loses its content
    kTools = 2048,               // a tool list is rendered (kTools* pieces)
    kToolsNeedUserFirst = 4096,  // the tool list goes into the first user message, which must follow the system one
    kKnownFlags = 8191
  };
  static constexpr const char* kToolsMarker = "\xEE\x80\x82";  // U+E002 in kTools* pieces: the tool list

  std::string pieces[kNumPieces];
  uint32_t flags = 0;
  ToolListFormat tools_format = ToolListFormat::kJson;
  ToolArgsFormat args_format = ToolArgsFormat::kJson;
  ToolContentFormat tool_content_format = ToolContentFormat::kRaw;

  /// Parses and validates tensor bytes; false + "chat.template: problem" on malformed data.
  static bool parse(const void* data, uint64_t bytes, ChatTemplate* out, std::string* err);
  /// The tensor bytes for these pieces (parse() reads them back unchanged).
  std::vector<uint8_t> serialize() const;
  /// The prompt text for `messages` and the tool list `tools` (each tool's JSON text; empty: no tools); `skip_bos`
  /// leaves out a leading BOS text because the tokenizer adds the BOS id itself. False + message on a conversation
  /// the template does not accept.
  bool apply(const std::vector<ChatMessage>& messages, const std::vector<std::string>& tools,
             bool add_generation_prompt, bool skip_bos, std::string* prompt, std::string* err) const;
  bool apply(const std::vector<ChatMessage>& messages, bool add_generation_prompt, bool skip_bos, std::string* prompt,
             std::string* err) const {
    return apply(messages, {}, add_generation_prompt, skip_bos, prompt, err);
  }
};

/// Python's str.strip() on UTF-8 text; bytes that are not valid UTF-8 stop the stripping.
std::string python_strip(const std::string& s);

}  // namespace saguaro
