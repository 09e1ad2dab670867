#include "saguaro/handoff/chat_request.h"

#include <nlohmann/json.hpp>

#include "saguaro/handoff/error.h"

namespace saguaro::handoff {

using nlohmann::json;

ChatCompletionRequest parse_chat_request(const std::string& text) {
  const json body = json::parse(text, nullptr, false);
  if (body.is_discarded()) throw BadChatRequest{"request body is not valid JSON", ""};
  if (!body.is_object()) throw BadChatRequest{"request body must be a JSON object", ""};
  if (!body.contains("messages")) throw BadChatRequest{"messages is required", "messages"};
  ChatCompletionRequest parsed;
  GenerationRequest& request = parsed.generation;
  try {
    request.messages = messages_from_json(body["messages"], LocalFiles::kRefuse);
    request.messages_json = body["messages"];
  } catch (const HandoffError& e) {
    throw BadChatRequest{e.what(), "messages"};
  }
  for (const char* key : {"max_tokens", "max_completion_tokens"}) {
    if (!body.contains(key) || body[key].is_null()) continue;
    if (!body[key].is_number_integer() || body[key].get<long long>() < 1) {
      throw BadChatRequest{std::string(key) + " must be a positive integer", key};
    }
    request.max_tokens = body[key].get<long long>();
  }
  if (body.contains("temperature") && !body["temperature"].is_null()) {
    if (!body["temperature"].is_number() || body["temperature"].get<double>() < 0 ||
        body["temperature"].get<double>() > 2) {
      throw BadChatRequest{"temperature must be a number from 0 to 2", "temperature"};
    }
    request.temperature = body["temperature"].get<double>();
  }
  // The local model checks the tools against its chat template (a 400 naming the problem when it cannot take them).
  if (body.contains("tools") && !body["tools"].is_null()) {
    if (!body["tools"].is_array()) throw BadChatRequest{"tools must be an array", "tools"};
    request.tools = body["tools"];
  }
  if (body.contains("tool_choice") && !body["tool_choice"].is_null()) request.tool_choice = body["tool_choice"];
  if (body.contains("response_format") && !body["response_format"].is_null()) {
    // Its schema is judged where it is compiled (saguaro_complete: options_json: response_format: ...).
    if (!body["response_format"].is_object())
      throw BadChatRequest{"response_format must be an object", "response_format"};
    request.response_format = body["response_format"];
  }
  if (body.contains("n") && !body["n"].is_null() && body["n"] != 1)
    throw BadChatRequest{"only n = 1 is supported", "n"};
  if (body.contains("model") && !body["model"].is_string()) throw BadChatRequest{"model must be a string", "model"};
  if (body.contains("stream") && !body["stream"].is_null()) {
    if (!body["stream"].is_boolean()) throw BadChatRequest{"stream must be true or false", "stream"};
    parsed.stream = body["stream"].get<bool>();
  }
  if (body.contains("stream_options") && !body["stream_options"].is_null()) {
    const json& options = body["stream_options"];
    if (!options.is_object()) throw BadChatRequest{"stream_options must be an object", "stream_options"};
    if (options.contains("include_usage") && !options["include_usage"].is_boolean())
      throw BadChatRequest{"stream_options.include_usage must be true or false", "stream_options"};
    parsed.include_usage = options.value("include_usage", false);
  }
  return parsed;
}

}  // namespace saguaro::handoff
