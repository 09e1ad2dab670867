//===- Serve.cpp - `saguaro serve`: an OpenAI-compatible server over a bundle ----------===//
//
// The bundle's own program runs once, in `--serve-stdio` mode (BundleProcess), with the model loaded for the whole
// session; the chat server of handoff/ (cpp-httplib) serves /v1/chat/completions and hands each request to it over
// a pipe, one at a time (the server serializes generator calls), streaming the pieces as the program prints them.
// Compiled with exceptions (handoff/ and nlohmann::json use them); nothing escapes this file.
//
//===------------------------------------------------------------------------------------===//
#include "compiler/driver/Serve.h"

#include "compiler/driver/BundleCache.h"
#include "compiler/driver/BundleProcess.h"
#include "compiler/driver/CompletionJson.h"
#include "saguaro/handoff/chat_server.h"
#include "saguaro/handoff/error.h"
#include "saguaro/handoff/http_client.h"
#include "saguaro/handoff/hybrid_complete.h"
#include "saguaro/handoff/options.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <pthread.h>
#include <thread>

using nlohmann::json;
using namespace saguaro;

llvm::Expected<std::string> saguaro::serveApiKey(const std::string &file) {
  std::string key, where = "$SAGUARO_SERVE_API_KEY";
  if (!file.empty()) {
    where = file;
    std::ifstream in(file);
    if (!in)
      return llvm::createStringError(file + ": cannot read the API key file");
    std::getline(in, key);
    if (key.empty())
      return llvm::createStringError(file + ": the API key file is empty (the key is its first line)");
  } else if (const char *env = std::getenv("SAGUARO_SERVE_API_KEY")) {
    key = env;
  }
  while (!key.empty() && (key.back() == '\r' || key.back() == ' ' || key.back() == '\t'))
    key.pop_back();
  for (unsigned char c : key)
    if (c <= ' ' || c == 0x7f)
      return llvm::createStringError(where + ": the API key must be one word of printable characters");
  return key;
}

namespace {
/// SIGTERM and SIGINT stop the server gently: no new connections, the answers in flight are finished, then serve()
/// returns and the process exits 0; a second signal ends it at once. The signals are blocked in every thread and
/// taken here by sigwait, so no code runs in a signal handler. The bundle program, started later, inherits the mask:
/// it ends when its input closes, not in the middle of an answer (a terminal's Ctrl-C reaches it too).
class DrainOnSignals {
public:
  explicit DrainOnSignals(handoff::ChatServer &server) {
    sigemptyset(&signals);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);
    waiter = std::thread([this, &server] {
      int signal = 0;
      if (sigwait(&signals, &signal) != 0 || done)
        return;
      llvm::errs() << "saguaro: " << strsignal(signal) << ": finishing the answers in flight\n";
      llvm::errs().flush();
      server.stop();
      if (sigwait(&signals, &signal) == 0 && !done)
        std::_Exit(1);
    });
  }
  ~DrainOnSignals() {
    done = true;
    pthread_kill(waiter.native_handle(), SIGTERM); // wakes the sigwait
    waiter.join();
  }

private:
  sigset_t signals;
  std::atomic<bool> done{false};
  std::thread waiter;
};

/// The generation result of saguaro_complete's response JSON `local`.
handoff::GenerationResult resultOf(const json &local, const std::string &text, long long maxTokens) {
  handoff::GenerationResult result;
  result.text = text;
  result.prompt_tokens = local.value("prefill_tokens", 0);
  result.completion_tokens = local.value("decode_tokens", 0);
  result.finish_reason = result.completion_tokens >= maxTokens ? "length" : "stop";
  // With tools the bundle program says why it stopped, and which calls the answer makes.
  result.finish_reason = local.value("finish_reason", result.finish_reason);
  result.tool_calls = local.value("tool_calls", json(nullptr));
  return result;
}
} // namespace

int saguaro::runServe(const ServeOptions &o) {
  try {
    json local = o.options.local;
    // With a policy the server answers as `saguaro complete` does: the local answer, then the cloud when the
    // policy says so (applied here, once: a bundle compiled with --handoff must not also hand off by itself).
    const bool hybrid = !o.options.policy.empty();
    const handoff::HandoffOptions &handoffOptions = o.options.handoff;
    if (hybrid)
      local["auto_handoff"] = false;
    // A request's options: the server's, under the request's max_tokens, temperature, tools, tool_choice and
    // response_format.
    auto optionsOf = [&](const handoff::GenerationRequest &r) {
      json options = local;
      options["max_tokens"] = r.max_tokens, options["temperature"] = r.temperature;
      const std::pair<const char *, const json *> fields[] = {
          {"tools", &r.tools}, {"tool_choice", &r.tool_choice}, {"response_format", &r.response_format}};
      for (const auto &[key, value] : fields)
        if (!value->is_null())
          options[key] = *value;
      return options;
    };
    auto exe = buildBundle(o.bundle);
    if (!exe) {
      llvm::errs() << "saguaro: " << llvm::toString(exe.takeError()) << "\n";
      return 1;
    }
    std::signal(SIGPIPE, SIG_IGN); // a dead child or client is an error to report, not a reason to die
    BundleProcess process(*exe, o.bundle, o.threads);
    handoff::ChatServer server(o.modelId, [&](const handoff::GenerationRequest &r,
                                              const handoff::TokenCallback &onToken) {
      if (!hybrid) {
        json answer = process.respond(r.messages_json, optionsOf(r), onToken); // pieces stream as they are made
        return resultOf(answer, answer.value("response", ""), r.max_tokens);
      }
      // The hybrid answer: the local pieces are held until the policy has decided, then the answer (local or
      // cloud) goes out whole; "saguaro" tells the client which, and why.
      json answer;
      auto generateLocal = [&] {
        answer = process.respond(r.messages_json, optionsOf(r), [](const std::string &) { return true; });
        return localAnswerOf(answer);
      };
      handoff::HybridHooks hooks;
      hooks.tools = r.tool_choice == "none" ? json(nullptr) : r.tools;
      hooks.tool_choice = r.tool_choice;
      json h = handoff::hybrid_complete(r.messages, handoffOptions, generateLocal, hooks);
      handoff::GenerationResult result = resultOf(answer, h.value("response", ""), r.max_tokens);
      if (h.value("cloud_handoff", false) && h.contains("cloud_tokens")) {
        result.completion_tokens = h["cloud_tokens"].value("completion", 0LL);
        result.finish_reason = "stop";
      }
      if (h.value("cloud_handoff", false)) { // the cloud's answer replaces the local one, calls included
        result.tool_calls = h.value("tool_calls", json(nullptr));
        result.finish_reason = h.value("finish_reason", result.finish_reason);
      }
      result.extra = {{"cloud_handoff", h["cloud_handoff"]},
                      {"confidence", h["confidence"]},
                      {"confidence_source", answer.value("confidence_source", "entropy")},
                      {"handoff_reason", h.value("handoff_reason", json(nullptr))},
                      {"error", h["error"]}};
      onToken(result.text);
      return result;
    }, o.limits);
    server.require_api_key(o.apiKey);
    int port = server.bind(o.host, o.port);
    llvm::errs() << "saguaro: serving " << o.bundle << " as \"" << o.modelId << "\" on http://" << o.host << ":"
                 << port << "/v1/chat/completions"
                 << (o.apiKey.empty() ? "" : " (clients send Authorization: Bearer KEY)") << "\n";
    if (o.apiKey.empty() && !handoff::is_loopback_host(o.host))
      llvm::errs() << "saguaro: warning: no API key (--api-key-file or $SAGUARO_SERVE_API_KEY): anyone who can reach "
                   << o.host << ":" << port << " can use this model\n";
    llvm::errs().flush();
    DrainOnSignals drain(server);
    server.serve();
    return 0;
  } catch (const std::exception &e) {
    llvm::errs() << "saguaro: " << e.what() << "\n";
    return 1;
  }
}
