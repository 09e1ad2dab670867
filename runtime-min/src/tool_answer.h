// The tool side of one saguaro_complete call (capi.cpp): what the prompt renders, what the stream may show while the
// answer is generated, and the answer's calls in the response.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "saguaro/chat_template.h"
#include "saguaro/json_schema_mask.h"
#include "saguaro/tool_request.h"

namespace saguaro {

class ToolAnswer {
 public:
  using Sink = std::function<void(const std::string& piece, uint32_t token_id)>;

  /// Reads the options' tools, tool_choice and builtin_tools (whose declarations join the tools the prompt renders,
  /// builtin_tool_loop.h) for a bundle whose chat template is `chat` (null: none). False + "options_json: ..." on bad
  /// tools, a built-in tool the caller also declares, a function's parameters that are no schema the mask takes (when tool_choice
  /// forces a call), or tools the template cannot express.
  bool init(const std::string& options_json, const ChatTemplate* chat, std::string* err);

  /// The tool list the prompt renders (empty without tools or with tool_choice "none").
  const std::vector<std::string>& prompt_tools() const;
  /// What the prompt is extended by so the answer continues a call (tool_choice "required" or a function).
  const std::string& forced_opening() const { return forced_.opening; }
  /// The built-in tools the options enable, run in-process (builtin_tool_loop.h).
  const std::vector<std::string>& builtin_tools() const { return builtins_; }
  /// The caller's tools for a hand-off to the cloud (the built-in ones stay local), as an OpenAI array (null when
  /// the caller gave none or the answer is not read for calls), and
  /// the request's tool_choice (null when not given).
  nlohmann::json cloud_tools() const;
  const nlohmann::json& tool_choice() const { return choice_; }
  /// The grammar the answer is constrained to when a call is forced (null: none).
  const std::shared_ptr<const JsonGrammar>& grammar() const { return grammar_; }

  /// `emit` with the pieces held back while they may belong to a call (null stays null; without tools: `emit`).
  /// Each generation (each round of built-in calls) takes a new filter.
  Sink filter(Sink emit);
  /// Reads the generated `text` for calls: *content is the text outside them; *fields the response's "tool_calls"
  /// and "finish_reason" ("tool_calls", or `finish_reason` without calls). Without tools: *content = text, no fields.
  /// A held tail that is no call goes out to the filtered sink. False + "model output: ..." on a call that does not
  /// parse or names a function the request did not offer.
  bool finish(const std::string& text, const std::string& finish_reason, std::string* content, nlohmann::json* fields,
              std::string* err);

 private:
  ToolRequest request_;
  std::vector<std::string> builtins_;  // enabled built-in tools; their declarations end request_.tools
  size_t caller_tools_ = 0;            // request_.tools before the built-in ones
  ToolCallSyntax syntax_ = ToolCallSyntax::kNone;
  ForcedCall forced_;
  nlohmann::json choice_;
  std::shared_ptr<const JsonGrammar> grammar_;
  std::string seen_;  // the generated text so far (the filter's)
  size_t shown_ = 0;  // bytes of seen_ already emitted
  Sink emit_;
};

}  // namespace saguaro
