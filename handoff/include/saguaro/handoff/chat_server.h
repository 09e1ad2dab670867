// An OpenAI-compatible chat server (POST /v1/chat/completions, streaming or not; GET /v1/models) over any text
// generator. `saguaro serve` wraps a compiled bundle with it; tests use it as the "cloud".
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "saguaro/handoff/error.h"
#include "saguaro/handoff/message.h"

namespace saguaro::handoff {

struct GenerationRequest {
  std::vector<Message> messages;
  // The messages as the client sent them, after messages_from_json accepted them (media only as data: URIs): they keep
  // the order of text and media parts, which the local model's prompt follows.
  nlohmann::json messages_json;
  long long max_tokens = 256;
  double temperature = 1.0;
  nlohmann::json tools;        // OpenAI tools, as sent (null: none)
  nlohmann::json tool_choice;  // null: the default ("auto" with tools)
  nlohmann::json response_format;  // the request's "response_format" object (docs/structured-output.md); null: none
};

struct GenerationResult {
  std::string text;
  long long prompt_tokens = 0;
  long long completion_tokens = 0;
  std::string finish_reason = "stop";  // stop | length | tool_calls
  // When not null, sent as the completion's "saguaro" field (in a stream: on the finish chunk) — what OpenAI's
  // schema has no place for, such as whether a hybrid answer came from the cloud. Clients ignore unknown fields.
  nlohmann::json extra;
  // OpenAI tool_calls ([{"id", "type": "function", "function": {"name", "arguments"}}]); null or empty: none, and
  // then `text` is the whole answer. With calls, `text` is the content beside them (often empty).
  nlohmann::json tool_calls;
};

// Thrown by a generator when the request itself cannot be answered (an image that does not decode, a budget above
// the compiled one): the server answers 400 with the message, as for a request it refuses itself, instead of 500.
struct InvalidRequest : HandoffError {
  using HandoffError::HandoffError;
};

// Called with each generated piece of text; returns false when the client went away and generation should stop.
using TokenCallback = std::function<bool(const std::string& piece)>;
using Generator = std::function<GenerationResult(const GenerationRequest& request, const TokenCallback& on_token)>;

// What the server accepts (docs/security.md, "Limits").
struct ChatServerLimits {
  // Requests waiting for the generator besides the one it runs; one more is answered 429 with Retry-After.
  int max_waiting = 8;
  // A request (line, headers and body) must arrive whole within this time of its first byte, else 408 and the
  // connection closes: a client trickling bytes cannot hold a worker.
  long long request_timeout_ms = 10000;
  size_t max_header_bytes = 64 * 1024;        // the request line and headers; more is 431
  size_t max_body_bytes = size_t{32} << 20;   // more is 413
};

class ChatServer {
 public:
  // The generator runs one request at a time, in arrival order, while connections are served concurrently.
  ChatServer(std::string model_id, Generator generator, ChatServerLimits limits = {});
  ~ChatServer();
  ChatServer(const ChatServer&) = delete;
  ChatServer& operator=(const ChatServer&) = delete;

  // Every request must then carry `Authorization: Bearer KEY` (as OpenAI's API does); others get 401 with an
  // OpenAI-style JSON error (code invalid_api_key) and never reach the generator. The key is compared in constant
  // time and appears in no response or message. Call before serving; an empty key turns the check off.
  void require_api_key(std::string key);
  // Binds host:port (port 0 = any free port) and returns the bound port. Throws HandoffError on failure.
  int bind(const std::string& host, int port);
  // Serves until stop(); blocks. Call bind() first.
  void serve();
  // Stops accepting connections; serve() returns once the requests in flight are answered (idle keep-alive
  // connections close at once). Callable from any thread; waits for that drain when serve_in_background started it.
  void stop();
  // Starts serve() on a background thread and returns once the server accepts connections; throws HandoffError
  // when it cannot start.
  void serve_in_background();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace saguaro::handoff
