// Compiled chat template: per-role prefix/suffix pieces from the `chat.template` tensor, applied without a
// template engine. The binary format is described at the top of chat_template.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace saguaro {

/// One item of a message's content given as parts (OpenAI content parts): text, or where an image or a clip goes.
struct ContentPart {
  enum Kind { kText, kImage, kAudio };
  Kind kind = kText;
  std::string text;  // kText only
};

/// One OpenAI-style message.
struct ChatMessage {
  std::string role;  // "system" (first message only), "user" or "assistant"
  std::string content;
  std::vector<ContentPart> parts;  // when not empty, the content as parts (`content` is then unused)
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
    kNumPieces
  };
  enum Flag : uint32_t {
    kTrimSystem = 1,     // the template strips whitespace around system contents (Python str.strip())
    kTrimUser = 2,
    kTrimAssistant = 4,
    kAlternate = 8,      // after an optional system message, roles must alternate user, assistant, user, ...
    kKnownFlags = 15
  };

  std::string pieces[kNumPieces];
  uint32_t flags = 0;

  /// Parses and validates tensor bytes; false + "chat.template: problem" on malformed data.
  static bool parse(const void* data, uint64_t bytes, ChatTemplate* out, std::string* err);
  /// The tensor bytes for these pieces (parse() reads them back unchanged).
  std::vector<uint8_t> serialize() const;
  /// The prompt text for `messages`; `skip_bos` leaves out a leading BOS text because the tokenizer adds the BOS
  /// id itself. False + message on a conversation the template does not accept.
  bool apply(const std::vector<ChatMessage>& messages, bool add_generation_prompt, bool skip_bos,
             std::string* prompt, std::string* err) const;
};

}  // namespace saguaro
