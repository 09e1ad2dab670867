// The chat-template targets' common end: compile a template, read the pieces back as the runtime does, apply them.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "ChatCompiler.h"
#include "saguaro/chat_template.h"

namespace saguaro::fuzz {

inline void compile_and_apply(const std::string& text, const ChatTemplateOptions& opts) {
  std::vector<uint8_t> bytes;
  std::string err;
  if (!compile_chat_template(text, opts, &bytes, &err)) return;
  ChatTemplate t;
  // The compiler's own output must read back.
  if (!ChatTemplate::parse(bytes.data(), bytes.size(), &t, &err)) {
    std::fprintf(stderr, "compiled pieces do not read back: %s\n", err.c_str());
    __builtin_trap();
  }
  std::string prompt;
  const std::vector<ChatMessage> conversation = {
      {"system", " Be brief. "}, {"user", "Hi"}, {"assistant", "Hello!"}, {"user", "2+2?"}};
  (void)t.apply(conversation, true, false, &prompt, &err);
  (void)t.apply({{"user", "x"}, {"assistant", "y"}, {"assistant", "z"}}, false, true, &prompt, &err);
}

}  // namespace saguaro::fuzz
