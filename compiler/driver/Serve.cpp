//===- Serve.cpp - `saguaro serve`: an OpenAI-compatible server over a bundle ----------===//
//
// The bundle's own program runs once, in `--serve-stdio` mode, with the model loaded for the whole session; the
// chat server of handoff/ (cpp-httplib) serves /v1/chat/completions and hands each request to it over a pipe, one
// at a time (the server serializes generator calls), streaming the pieces as the program prints them. Compiled with
// exceptions (handoff/ and nlohmann::json use them); nothing escapes this file.
//
//===------------------------------------------------------------------------------------===//
#include "compiler/driver/Serve.h"

#include "compiler/driver/BundleCache.h"
#include "compiler/driver/CompletionJson.h"
#include "saguaro/handoff/chat_server.h"
#include "saguaro/handoff/error.h"
#include "saguaro/handoff/http_client.h"
#include "saguaro/handoff/hybrid_complete.h"
#include "saguaro/handoff/options.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

using nlohmann::json;
using namespace saguaro;

namespace {
/// The bundle program in --serve-stdio mode, restarted when it has died.
class BundleProcess {
public:
  BundleProcess(std::string exe, std::string bundle, std::string threads)
      : exe(std::move(exe)), bundle(std::move(bundle)), threads(std::move(threads)) {}
  ~BundleProcess() { stop(); }

  /// saguaro_complete's response JSON for `r`, with `defaults` under the request's max_tokens and temperature;
  /// each piece goes to onToken as the program prints it.
  json respond(const handoff::GenerationRequest &r, const json &defaults, const handoff::TokenCallback &onToken) {
    if (!in && !start())
      throw handoff::HandoffError(bundle + ": cannot start the bundle program");
    json options = defaults;
    options["max_tokens"] = r.max_tokens, options["temperature"] = r.temperature;
    if (!r.tools.is_null())
      options["tools"] = r.tools;
    if (!r.tool_choice.is_null())
      options["tool_choice"] = r.tool_choice;
    if (!r.response_format.is_null())
      options["response_format"] = r.response_format;
    json request = {{"messages", r.messages_json}, {"options", options}};
    std::string line = request.dump() + "\n";
    if (std::fwrite(line.data(), 1, line.size(), in) != line.size() || std::fflush(in) != 0) {
      stop();
      throw handoff::HandoffError(bundle + ": the bundle program stopped");
    }
    bool forward = true;
    std::string text;
    for (std::string reply; readLine(reply);) {
      json j = json::parse(reply, nullptr, false);
      if (j.is_discarded())
        continue;
      if (j.contains("token")) {
        if (forward)
          forward = onToken(j["token"].get<std::string>()); // a client that left: finish quietly, stop forwarding
        continue;
      }
      if (j.contains("error")) {
        // saguaro_complete names the request's own problems by the argument they are in (docs/runtime.md).
        const std::string error = j["error"].get<std::string>();
        if (error.rfind("messages_json: ", 0) == 0 || error.rfind("options_json: ", 0) == 0)
          throw handoff::InvalidRequest(error);
        throw handoff::HandoffError(error);
      }
      return j["response"];
    }
    stop();
    throw handoff::HandoffError(bundle + ": the bundle program stopped");
  }

private:
  bool start() {
    int toChild[2], fromChild[2];
    if (pipe(toChild) != 0)
      return false;
    if (pipe(fromChild) != 0) {
      close(toChild[0]), close(toChild[1]);
      return false;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, toChild[0], 0);
    posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1);
    for (int fd : {toChild[0], toChild[1], fromChild[0], fromChild[1]})
      posix_spawn_file_actions_addclose(&actions, fd);
    std::string blob = bundle + "/weights.sgw";
    std::vector<char *> argv = {exe.data(), blob.data(), const_cast<char *>("--serve-stdio"),
                                const_cast<char *>("--threads"), threads.data(), nullptr};
    int rc = posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(toChild[0]), close(fromChild[1]);
    if (rc != 0) {
      close(toChild[1]), close(fromChild[0]);
      pid = -1;
      return false;
    }
    in = fdopen(toChild[1], "w");
    out = fdopen(fromChild[0], "r");
    return in && out;
  }
  bool readLine(std::string &line) {
    line.clear();
    for (int c; (c = std::fgetc(out)) != EOF;) {
      if (c == '\n')
        return true;
      line.push_back(static_cast<char>(c));
    }
    return false;
  }
  void stop() {
    if (in)
      std::fclose(in); // end of input: the program exits
    if (out)
      std::fclose(out);
    in = out = nullptr;
    if (pid > 0)
      waitpid(pid, nullptr, 0);
    pid = -1;
  }

  std::string exe, bundle, threads;
  FILE *in = nullptr, *out = nullptr;
  pid_t pid = -1;
};
} // namespace

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

llvm::Expected<ServeCompletionOptions> saguaro::serveOptions(const std::string &argument) {
  ServeCompletionOptions o;
  if (argument.empty())
    return o;
  try {
    json options;
    std::string error;
    if (!readJsonArgument(argument, "--options", options, error))
      return llvm::createStringError(error);
    if (!options.is_object())
      return llvm::createStringError("--options must be a JSON object");
    splitCompletionOptions(options, o.local, o.policy);
    o.handoff = handoff::parse_options(o.policy); // the policy's own one-line errors, before anything is compiled
    return o;
  } catch (const std::exception &e) {
    return llvm::createStringError(std::string("--options: ") + e.what());
  }
}

namespace {
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
        json answer = process.respond(r, local, onToken); // pieces stream as they are made
        return resultOf(answer, answer.value("response", ""), r.max_tokens);
      }
      // The hybrid answer: the local pieces are held until the policy has decided, then the answer (local or
      // cloud) goes out whole; "saguaro" tells the client which, and why.
      json answer;
      auto generateLocal = [&] {
        answer = process.respond(r, local, [](const std::string &) { return true; });
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
    });
    server.require_api_key(o.apiKey);
    int port = server.bind(o.host, o.port);
    llvm::errs() << "saguaro: serving " << o.bundle << " as \"" << o.modelId << "\" on http://" << o.host << ":"
                 << port << "/v1/chat/completions"
                 << (o.apiKey.empty() ? "" : " (clients send Authorization: Bearer KEY)") << "\n";
    if (o.apiKey.empty() && !handoff::is_loopback_host(o.host))
      llvm::errs() << "saguaro: warning: no API key (--api-key-file or $SAGUARO_SERVE_API_KEY): anyone who can reach "
                   << o.host << ":" << port << " can use this model\n";
    llvm::errs().flush();
    server.serve();
    return 0;
  } catch (const std::exception &e) {
    llvm::errs() << "saguaro: " << e.what() << "\n";
    return 1;
  }
}
