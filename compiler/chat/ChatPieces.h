// Template -> pieces: renders sentinel conversations, splits the output into per-role pieces and checks that the
// pieces reproduce the template on other conversations.
#pragma once

#include <string>
#include <vector>

#include "ChatCompiler.h"
#include "ChatVariables.h"
#include "JinjaTemplate.h"
#include "saguaro/chat_template.h"

namespace saguaro::chat {

/// The pieces of `tmpl`, verified against its own rendering; throws TemplateError when it cannot be expressed.
/// Tool features the pieces cannot reproduce are left out, each with a line in *notes (when given) saying why.
ChatTemplate decompose(const Template& tmpl, const ChatTemplateOptions& opts, std::vector<std::string>* notes);

}  // namespace saguaro::chat
