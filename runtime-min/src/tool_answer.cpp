// One completion's tools (tool_answer.h): request → prompt, stream hold-back, answer → OpenAI tool_calls.
#include "tool_answer.h"

#include <algorithm>

#include "builtin_tool_loop.h"
#include "saguaro/builtin_tools.h"

namespace saguaro {

bool ToolAnswer::init(const std::string& options_json, const ChatTemplate* chat, std::string* err) {
  *this = ToolAnswer();
  if (!read_tool_request(options_json, &request_, err)) return *err = "options_json: " + *err, false;
  const nlohmann::json options = nlohmann::json::parse(options_json);
  if (!read_builtin_tools(options, &builtins_, err)) return *err = "options_json: " + *err, false;
  caller_tools_ = request_.tools.size();
  for (const std::string& name : builtins_) {
    if (std::find(request_.names.begin(), request_.names.end(), name) != request_.names.end())
      return *err = "options_json: \"builtin_tools\": \"" + name + "\" is also one of the \"tools\"", false;
    request_.tools.push_back(builtin_tool_declaration(name));
    request_.names.push_back(name);
  }
  if (request_.tools.empty()) return true;
  choice_ = options.value("tool_choice", nlohmann::json());
  std::string why = "the bundle has no chat template to render tools with";
  syntax_ = chat ? tool_call_syntax(*chat, &why) : ToolCallSyntax::kNone;
  if (syntax_ == ToolCallSyntax::kNone) return *err = "options_json: \"tools\": " + why, false;
  if (request_.choice != ToolRequest::kRequired && request_.choice != ToolRequest::kNamed) return true;
  forced_ = forced_call(syntax_, request_.tools, request_.named);
  if (forced_.schema.empty()) return true;
  grammar_ = JsonGrammar::from_schema(forced_.schema, err);
  if (!grammar_) return *err = "options_json: \"tools\": the parameters are no schema the token mask takes: " + *err, false;
  return true;
}

const std::vector<std::string>& ToolAnswer::prompt_tools() const {
  static const std::vector<std::string> kNoTools;
  return request_.choice == ToolRequest::kNone ? kNoTools : request_.tools;
}

nlohmann::json ToolAnswer::cloud_tools() const {
  if (!request_.active() || caller_tools_ == 0) return nullptr;
  nlohmann::json tools = nlohmann::json::array();
  for (size_t k = 0; k < caller_tools_; ++k) tools.push_back(nlohmann::json::parse(request_.tools[k]));
  return tools;
}

ToolAnswer::Sink ToolAnswer::filter(Sink emit) {
  if (!emit || !request_.active()) return emit;
  emit_ = std::move(emit);
  seen_.clear();
  shown_ = 0;
  return [this](const std::string& piece, uint32_t id) {
    seen_ += piece;
    // A forced call is all call: nothing of it is content.
    const size_t free = forced_.opening.empty() && !grammar_ ? tool_free_prefix(syntax_, seen_) : 0;
    if (free > shown_) emit_(seen_.substr(shown_, free - shown_), id), shown_ = free;
  };
}

bool ToolAnswer::finish(const std::string& text, const std::string& finish_reason, std::string* content,
                        nlohmann::json* fields, std::string* err) {
  *fields = nlohmann::json::object();
  if (!request_.active()) return *content = text, true;
  std::vector<ParsedToolCall> calls;
  nlohmann::json tool_calls;
  const std::string whole = forced_.opening + text + forced_.closing;
  if (!parse_tool_calls(syntax_, whole, content, &calls, err) ||
      !tool_calls_json(calls, request_, &tool_calls, err))
    return *err = "model output: " + *err, false;
  if (calls.empty() && (grammar_ || !forced_.opening.empty())) return *err = "model output: tool_choice asked for a call, and the answer has none", false;
  if (calls.empty() && emit_ && seen_.size() > shown_) emit_(seen_.substr(shown_), 0xFFFFFFFFu), shown_ = seen_.size();
  *fields = {{"tool_calls", tool_calls}, {"finish_reason", calls.empty() ? finish_reason : "tool_calls"}};
  return true;
}

}  // namespace saguaro
