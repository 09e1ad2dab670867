// A parsed Jinja-subset template that renders with given variables (the compile-time chat-template renderer).
#pragma once

#include <string>

#include "JinjaAst.h"
#include "JinjaLexer.h"

namespace saguaro::chat {

class Template {
 public:
  /// Parses `src`; throws TemplateError naming the line of bad or unsupported syntax.
  explicit Template(const std::string& src, const LexOptions& opts = LexOptions());
  /// Renders with `vars` as the template's variables; throws TemplateError (TemplateRaise for raise_exception).
  std::string render(const Dict& vars) const;

 private:
  Body body_;
};

}  // namespace saguaro::chat
