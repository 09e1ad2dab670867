// Splits a Jinja template into text and tag tokens, applying whitespace control like Hugging Face's environment.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace saguaro::chat {

struct Token {
  enum class Kind { Text, VarBegin, VarEnd, BlockBegin, BlockEnd, Name, String, Int, Float, Op, End };
  Kind kind;
  std::string text;  // Text contents, Name, String value (unescaped), Op spelling
  int64_t ival = 0;
  double fval = 0;
  int line = 1;
};

/// Whitespace handling; Hugging Face renders chat templates with both on (and keep_trailing_newline off).
struct LexOptions {
  bool trim_blocks = true;    // drop the first newline after a block or comment tag
  bool lstrip_blocks = true;  // drop spaces and tabs before a block or comment tag that starts its line
};

/// Tokens of `src`, ending with Kind::End; throws TemplateError ("chat_template line N: ...") on bad syntax.
std::vector<Token> lex(const std::string& src, const LexOptions& opts);

}  // namespace saguaro::chat
