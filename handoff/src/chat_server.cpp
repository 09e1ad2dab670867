#include "saguaro/handoff/chat_server.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <memory>
#include <thread>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "bounded_http_server.h"
#include "turn_queue.h"
#include "saguaro/handoff/chat_request.h"
#include "saguaro/handoff/error.h"

namespace saguaro::handoff {
namespace {

using nlohmann::json;

// OpenAI's error envelope, so client SDKs surface the message instead of a parse failure.
void send_error(httplib::Response& res, int status, const std::string& message, const char* type,
                const std::string& param = "", const char* code = nullptr) {
  json error = {{"message", message}, {"type", type}, {"param", param.empty() ? json(nullptr) : json(param)},
                {"code", code ? json(code) : json(nullptr)}};
  res.status = status;
  res.set_content(json{{"error", error}}.dump(), "application/json");
}

// Whether `header` is "Bearer KEY": every byte of the candidate is compared whatever the first difference, so the
// time taken does not tell a client how much of a guessed key was right.
bool bearer_matches(const std::string& header, const std::string& key) {
  static const std::string scheme = "Bearer ";
  if (header.size() != scheme.size() + key.size() || header.compare(0, scheme.size(), scheme) != 0) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < key.size(); ++i) diff |= static_cast<unsigned char>(header[scheme.size() + i] ^ key[i]);
  return diff == 0;
}

long long unix_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

bool has_calls(const GenerationResult& r) { return r.tool_calls.is_array() && !r.tool_calls.empty(); }

// OpenAI streams a call as deltas of one tool_calls entry by its index: the first with the id, type and name (and
// empty arguments), the next with the arguments text. The arguments go out whole: they are read after generation.
std::vector<json> tool_call_deltas(const json& calls) {
  std::vector<json> deltas;
  for (size_t i = 0; i < calls.size(); ++i) {
    const json& call = calls[i];
    deltas.push_back({{"tool_calls", json::array({{{"index", i}, {"id", call["id"]}, {"type", "function"},
                                                   {"function", {{"name", call["function"]["name"]},
                                                                 {"arguments", ""}}}}})}});
    deltas.push_back({{"tool_calls", json::array({{{"index", i},
                                                   {"function", {{"arguments", call["function"]["arguments"]}}}}})}});
  }
  return deltas;
}

json usage_json(const GenerationResult& r) {
  return {{"prompt_tokens", r.prompt_tokens},
          {"completion_tokens", r.completion_tokens},
          {"total_tokens", r.prompt_tokens + r.completion_tokens}};
}

}  // namespace

struct ChatServer::Impl {
  explicit Impl(const ChatServerLimits& limits)
      : limits(limits),
        server(HttpLimits{std::chrono::milliseconds(limits.request_timeout_ms), limits.max_header_bytes}) {}

  const ChatServerLimits limits;
  std::string model_id;
  std::string api_key;  // empty: no check
  Generator generator;
  TurnQueue generator_turns;  // the generator (one model, one KV cache) runs one request at a time, in arrival order
  std::atomic<int> admitted{0};  // completions generating or waiting for the generator
  std::atomic<double> mean_generation_s{1.0};  // a running mean, for Retry-After
  std::atomic<unsigned long long> next_id{1};
  BoundedHttpServer server;
  std::thread background;
  long long created = unix_seconds();

  std::string new_completion_id() { return "chatcmpl-saguaro-" + std::to_string(next_id++); }

  // A place among the completions generating or waiting, given back when the generation ends (before the client
  // sees the end of the answer and asks again), or when a stream's content provider is dropped without running.
  struct Admission {
    std::atomic<int>& count;
    std::atomic<bool> held{true};
    void release() {
      if (held.exchange(false)) --count;
    }
    ~Admission() { release(); }
  };
  std::shared_ptr<Admission> admit() {
    if (++admitted > limits.max_waiting + 1) return --admitted, nullptr;
    return std::shared_ptr<Admission>(new Admission{admitted});
  }
  void send_busy(httplib::Response& res) const {
    // Time for the generations ahead to finish, from the mean of the recent ones; at least a second.
    const double wait = mean_generation_s.load() * static_cast<double>(admitted.load());
    res.set_header("Retry-After", std::to_string(std::max(1LL, static_cast<long long>(std::ceil(wait)))));
    send_error(res, 429,
               "the server is busy: " + std::to_string(limits.max_waiting) + " requests are already waiting for the model",
               "rate_limit_error", "", "server_busy");
  }
  // The generator in the request's turn, timed for Retry-After. While waiting for its turn the request is dropped
  // (false) as soon as `wanted` says its client left, so clients that leave do not fill the queue.
  bool generate(const GenerationRequest& request, const TokenCallback& on_token, const std::function<bool()>& wanted,
                GenerationResult* result) {
    if (!generator_turns.wait_turn(wanted, std::chrono::milliseconds(50))) return false;
    struct EndTurn {
      TurnQueue& turns;
      ~EndTurn() { turns.end_turn(); }
    } end_turn{generator_turns};
    const auto start = std::chrono::steady_clock::now();
    *result = generator(request, on_token);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    mean_generation_s = 0.8 * mean_generation_s.load() + 0.2 * s;
    return true;
  }

  json chunk(const std::string& id, long long ts, const json& delta, const json& finish_reason) const {
    return {{"id", id},
            {"object", "chat.completion.chunk"},
            {"created", ts},
            {"model", model_id},
            {"choices", json::array({{{"index", 0}, {"delta", delta}, {"finish_reason", finish_reason}}})}};
  }

  void handle_completion(const httplib::Request& req, httplib::Response& res) {
    ChatCompletionRequest parsed;
    try {
      parsed = parse_chat_request(req.body);
    } catch (const BadChatRequest& bad) {
      return send_error(res, 400, bad.message, "invalid_request_error", bad.param);
    }
    GenerationRequest& request = parsed.generation;
    std::shared_ptr<Admission> admission = admit();
    if (!admission) return send_busy(res);
    if (parsed.stream) return stream_completion(std::move(request), parsed.include_usage, std::move(admission), res);

    GenerationResult result;
    try {
      generate(request, [](const std::string&) { return true; }, [] { return true; }, &result);
    } catch (const InvalidRequest& e) {
      return send_error(res, 400, e.what(), "invalid_request_error", "messages");
    }
    json message = {{"role", "assistant"}, {"content", result.text}};
    if (has_calls(result)) {
      message["tool_calls"] = result.tool_calls;
      if (result.text.empty()) message["content"] = nullptr;  // as OpenAI answers a call without text
    }
    json choice = {{"index", 0}, {"message", message}, {"finish_reason", result.finish_reason}};
    json response = {{"id", new_completion_id()}, {"object", "chat.completion"}, {"created", unix_seconds()},
                     {"model", model_id}, {"choices", json::array({choice})}, {"usage", usage_json(result)}};
    if (!result.extra.is_null()) response["saguaro"] = result.extra;
    res.set_content(response.dump(), "application/json");
  }

  // Server-sent events in OpenAI's chunk format: a role delta, content deltas, tool_calls deltas, a finish chunk, an
  // optional usage chunk, then [DONE]. The generator runs inside the content provider so each piece goes out as it
  // is made.
  void stream_completion(GenerationRequest request, bool include_usage, std::shared_ptr<Admission> admission,
                         httplib::Response& res) {
    const std::string id = new_completion_id();
    const long long ts = unix_seconds();
    res.set_header("Cache-Control", "no-cache");
    res.set_chunked_content_provider(
        "text/event-stream",
        [this, request = std::move(request), include_usage, id, ts, admission](size_t, httplib::DataSink& sink) {
          auto send = [&sink](const json& event) {
            const std::string line = "data: " + event.dump() + "\n\n";
            return sink.write(line.data(), line.size());
          };
          bool client_alive = send(chunk(id, ts, {{"role", "assistant"}, {"content", ""}}, nullptr));
          if (!client_alive) return false;  // gone before its turn: nothing to generate
          GenerationResult result;
          try {
            auto on_piece = [&](const std::string& piece) {
              client_alive = client_alive && send(chunk(id, ts, {{"content", piece}}, nullptr));
              return client_alive;
            };
            if (!generate(request, on_piece, [&] { return sink.is_writable(); }, &result)) return false;
            admission->release();
          } catch (const std::exception& e) {
            admission->release();
            // Headers are already sent; an error event is the only way left to tell the client.
            send(json{{"error", {{"message", std::string("generation failed: ") + e.what()}, {"type", "server_error"}}}});
            sink.done();
            return true;
          }
          if (!client_alive) return false;
          if (has_calls(result))
            for (const json& delta : tool_call_deltas(result.tool_calls)) send(chunk(id, ts, delta, nullptr));
          json finish = chunk(id, ts, json::object(), result.finish_reason);
          if (!result.extra.is_null()) finish["saguaro"] = result.extra;
          send(finish);
          if (include_usage) {
            json usage_chunk = chunk(id, ts, json::object(), nullptr);
            usage_chunk["choices"] = json::array();
            usage_chunk["usage"] = usage_json(result);
            send(usage_chunk);
          }
          const std::string done = "data: [DONE]\n\n";
          sink.write(done.data(), done.size());
          sink.done();
          return true;
        });
  }

  void handle_models(httplib::Response& res) const {
    json model = {{"id", model_id}, {"object", "model"}, {"created", created}, {"owned_by", "saguaro"}};
    res.set_content(json{{"object", "list"}, {"data", json::array({model})}}.dump(), "application/json");
  }
};

ChatServer::ChatServer(std::string model_id, Generator generator, ChatServerLimits limits)
    : impl_(std::make_unique<Impl>(limits)) {
  impl_->model_id = std::move(model_id);
  impl_->generator = std::move(generator);
  Impl* impl = impl_.get();
  // Enough workers that 8 clients holding keep-alive connections do not starve a ninth.
  impl->server.new_task_queue = [] { return new httplib::ThreadPool(16); };
  impl->server.set_payload_max_length(limits.max_body_bytes);
  impl->server.set_pre_routing_handler([impl](const httplib::Request& req, httplib::Response& res) {
    if (impl->api_key.empty() || bearer_matches(req.get_header_value("Authorization"), impl->api_key))
      return httplib::Server::HandlerResponse::Unhandled;
    res.set_header("WWW-Authenticate", "Bearer");
    send_error(res, 401,
               req.has_header("Authorization") ? "the API key is not valid for this server"
                                               : "this server needs an API key: send Authorization: Bearer KEY",
               "invalid_request_error", "", "invalid_api_key");
    return httplib::Server::HandlerResponse::Handled;
  });
  impl->server.Post("/v1/chat/completions",
                    [impl](const httplib::Request& req, httplib::Response& res) { impl->handle_completion(req, res); });
  impl->server.Get("/v1/models", [impl](const httplib::Request&, httplib::Response& res) { impl->handle_models(res); });
  impl->server.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "internal error";
    try {
      if (ep) std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    send_error(res, 500, "generation failed: " + what, "server_error");
  });
  // Requests cut off by a limit, unknown paths and methods get the same JSON envelope as everything else.
  impl->server.set_error_handler([impl](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    const RequestBreach breach = current_request_breach();
    if (breach == RequestBreach::kTimeout)
      return send_error(res, 408,
                        "the request did not arrive whole within " + std::to_string(impl->limits.request_timeout_ms) +
                            " ms",
                        "invalid_request_error");
    if (breach == RequestBreach::kHeaderTooLarge)
      return send_error(res, 431, "the request headers are larger than " +
                                      std::to_string(impl->limits.max_header_bytes) + " bytes",
                        "invalid_request_error");
    if (res.status == 413)
      return send_error(res, 413, "the request body is larger than " + std::to_string(impl->limits.max_body_bytes) +
                                      " bytes", "invalid_request_error");
    const int status = res.status;
    send_error(res, status, "no route for " + req.method + " " + req.path,
               status == 404 ? "not_found_error" : "invalid_request_error");
  });
}

ChatServer::~ChatServer() { stop(); }

void ChatServer::require_api_key(std::string key) { impl_->api_key = std::move(key); }

int ChatServer::bind(const std::string& host, int port) {
  if (port == 0) {
    const int bound = impl_->server.bind_to_any_port(host);
    if (bound <= 0) throw HandoffError("cannot bind a port on " + host);
    return bound;
  }
  if (!impl_->server.bind_to_port(host, port)) {
    throw HandoffError("cannot bind " + host + ":" + std::to_string(port) + " (in use, or not permitted)");
  }
  return port;
}

void ChatServer::serve() { impl_->server.listen_after_bind(); }

void ChatServer::serve_in_background() {
  auto finished = std::make_shared<std::atomic<bool>>(false);
  impl_->background = std::thread([this, finished] {
    serve();
    *finished = true;
  });
  // listen_after_bind returns at once when the socket is unusable; do not wait for a server that never runs.
  while (!impl_->server.is_running()) {
    if (*finished) throw HandoffError("chat server stopped before accepting connections (call bind() first)");
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

void ChatServer::stop() {
  impl_->server.stop();
  if (impl_->background.joinable()) impl_->background.join();
}

}  // namespace saguaro::handoff
