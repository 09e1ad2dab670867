// Parses Jinja tokens into statements; rejects statements, filters and tests outside the subset by name.
#pragma once

#include <vector>

#include "JinjaAst.h"
#include "JinjaLexer.h"

namespace saguaro::chat {

/// The template's statements; throws TemplateError ("chat_template line N: ...") on bad or unsupported syntax.
Body parse(const std::vector<Token>& tokens);

}  // namespace saguaro::chat
