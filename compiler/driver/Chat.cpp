//===- Chat.cpp - `saguaro chat`: an interactive conversation with a bundle ------------===//
//
// One bundle program in `--serve-stdio` mode (BundleProcess) keeps the model loaded; each line the user types is a
// user message, or a command (/help). The whole conversation goes to the program each turn, so the compiled chat
// template renders it and the reply streams back piece by piece. With a hand-off policy in --options the local
// reply streams as it is generated, then the policy decides (handoff::hybrid_complete_json, as `saguaro complete`
// does) and a cloud answer follows when it hands off. Ctrl-C during a reply asks the program to stop (SIGUSR1,
// which it turns into saguaro_stop); the partial reply stays in the conversation. Compiled with exceptions
// (handoff/ and nlohmann::json use them); nothing escapes this file.
//
//===------------------------------------------------------------------------------------===//
#include "compiler/driver/Chat.h"

#include "compiler/driver/BundleCache.h"
#include "compiler/driver/BundleProcess.h"
#include "compiler/driver/CompletionJson.h"
#include "saguaro/handoff/error.h"
#include "saguaro/handoff/hybrid_complete.h"
#include "saguaro/handoff/options.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <unistd.h>

using nlohmann::json;
using namespace saguaro;

namespace {
/// The program generating a reply right now (null otherwise): where Ctrl-C goes.
std::atomic<const BundleProcess *> gGenerating{nullptr};
/// Waiting for the user's line (not generating, not waiting for the cloud).
std::atomic<bool> gAtPrompt{false};

void onInterrupt(int) {
  if (const BundleProcess *process = gGenerating.load())
    process->interrupt();
  else if (gAtPrompt.load()) // the terminal has dropped the line; start a fresh one
    (void)!write(STDOUT_FILENO, "\n> ", 3);
}

/// The local reply was stopped by Ctrl-C: the policy does not judge it.
struct Stopped {};

const char *const kHelp = "commands:\n"
                          "  /system TEXT   set the system message (empty TEXT: none); kept by /reset\n"
                          "  /image FILE    attach an image to your next message (models with a vision tower)\n"
                          "  /audio FILE    attach a WAV clip to your next message (models with an audio tower)\n"
                          "  /reset         forget the conversation\n"
                          "  /save FILE     write the conversation: FILE.json as chat messages, any other name as text\n"
                          "  /help          this list\n"
                          "  /exit          leave (so does Ctrl-D); Ctrl-C stops a reply\n";

bool gAtLineStart = true; // the last character printed ends a line

void print(const std::string &text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  if (!text.empty())
    gAtLineStart = text.back() == '\n';
}

/// Ends the line a streamed reply left open, so what follows starts at the left edge.
void endLine() {
  if (!gAtLineStart)
    print("\n");
}

std::string fixed(double value, int digits) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

/// The conversation as text: one "role: content" paragraph per message, attachments named.
std::string transcriptText(const json &messages) {
  std::string text;
  for (const json &m : messages) {
    text += m.value("role", "") + ": " + m.value("content", "") + "\n";
    for (const char *kind : {"images", "audio"})
      for (const json &path : m.value(kind, json::array()))
        text += "  [" + std::string(kind == std::string("images") ? "image" : "audio") + " " +
                path.get<std::string>() + "]\n";
    text += "\n";
  }
  return text;
}

/// The messages with each one's keys in the order people write them: role, content, then attachments.
nlohmann::ordered_json roleFirst(const json &messages) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const json &m : messages) {
    nlohmann::ordered_json message = {{"role", m["role"]}, {"content", m["content"]}};
    for (const auto &[key, value] : m.items())
      if (key != "role" && key != "content")
        message[key] = value;
    out.push_back(message);
  }
  return out;
}

class ChatSession {
public:
  ChatSession(const ChatOptions &o, const std::string &exe, const llvm::json::Object &manifest,
              json localOptions, json policyOptions)
      : process(exe, o.bundle, o.threads, /*ownProcessGroup=*/true), system(o.system),
        local(std::move(localOptions)), policy(std::move(policyOptions)), hybrid(!policy.empty()), hasVision(manifest.getObject("vision") != nullptr),
        hasAudio(manifest.getObject("audio") != nullptr) {}

  /// Runs one line of input; false when the session ends.
  bool handle(const std::string &line) {
    if (line.empty())
      return true;
    if (line[0] != '/') {
      say(line);
      return true;
    }
    const size_t space = line.find(' ');
    const std::string command = line.substr(0, space);
    const std::string argument = space == std::string::npos ? "" : line.substr(line.find_first_not_of(' ', space));
    if (command == "/exit" || command == "/quit")
      return false;
    if (command == "/help")
      print(kHelp);
    else if (command == "/reset")
      history = json::array(), images.clear(), audio.clear(), print("(the conversation is forgotten)\n");
    else if (command == "/system")
      system = argument, print(system.empty() ? "(no system message)\n" : "(system message set)\n");
    else if (command == "/image")
      attach(argument, "image", hasVision, images);
    else if (command == "/audio")
      attach(argument, "audio", hasAudio, audio);
    else if (command == "/save")
      save(argument);
    else
      complain(command + ": unknown command (/help lists them)");
    return true;
  }

private:
  void complain(const std::string &message) { llvm::errs() << "saguaro: " << message << "\n", llvm::errs().flush(); }

  /// The messages the model reads: the system message, then the history.
  json conversation() const {
    json messages = json::array();
    if (!system.empty())
      messages.push_back({{"role", "system"}, {"content", system}});
    for (const json &m : history)
      messages.push_back(m);
    return messages;
  }

  void attach(const std::string &path, const char *kind, bool hasTower, std::vector<std::string> &pending) {
    if (!hasTower)
      return complain(std::string("/") + kind + ": the model has no " + (kind == std::string("image") ? "vision" : kind) +
                      " tower");
    if (path.empty())
      return complain(std::string("/") + kind + " needs a FILE");
    if (!llvm::sys::fs::is_regular_file(path))
      return complain(path + ": no such file");
    pending.push_back(path);
    print("(" + std::string(kind) + " " + path + " goes with your next message)\n");
  }

  void save(const std::string &path) {
    if (path.empty())
      return complain("/save needs a FILE");
    const bool asJson = llvm::StringRef(path).ends_with(".json");
    const std::string text = asJson ? roleFirst(conversation()).dump(2) + "\n" : transcriptText(conversation());
    const std::string partial = path + ".tmp";
    {
      std::ofstream out(partial, std::ios::binary);
      out << text;
      if (!out) {
        llvm::sys::fs::remove(partial);
        return complain(path + ": cannot write");
      }
    }
    if (std::error_code ec = llvm::sys::fs::rename(partial, path)) {
      llvm::sys::fs::remove(partial);
      return complain(path + ": cannot write: " + ec.message());
    }
    print("(saved " + std::to_string(history.size()) + " messages to " + path + ")\n");
  }

  /// One turn: the user's message, the streamed reply, a status line; the reply joins the history.
  void say(const std::string &text) {
    json message = {{"role", "user"}, {"content", text}};
    if (!images.empty())
      message["images"] = images;
    if (!audio.empty())
      message["audio"] = audio;
    history.push_back(message);
    const json request = conversation();
    json answer; // the bundle program's response (the local reply)
    auto generateLocal = [&]() -> handoff::LocalAnswer {
      gGenerating = &process;
      auto atPrompt = llvm::make_scope_exit([] { gGenerating = nullptr; });
      answer = process.respond(request, local, [](const std::string &piece) { return print(piece), true; });
      if (answer.value("stopped", false))
        throw Stopped{};
      return localAnswerOf(answer);
    };
    json reply;
    try {
      if (hybrid) {
        reply = handoff::hybrid_complete_json(request, policy, generateLocal);
      } else {
        generateLocal();
        reply = answer;
      }
    } catch (const Stopped &) {
      const std::string text = answer.value("response", "");
      endLine();
      print("[stopped · " + std::to_string(answer.value("decode_tokens", 0)) + " tokens]\n");
      history.push_back({{"role", "assistant"}, {"content", text}});
      images.clear(), audio.clear();
      return;
    } catch (const std::exception &e) { // the request's problem or the program's: the chat goes on without it
      history.erase(history.end() - 1);
      endLine();
      return complain(e.what());
    }
    images.clear(), audio.clear();
    const bool cloud = reply.value("cloud_handoff", false);
    const std::string response = reply.value("response", "");
    if (cloud)
      endLine(), print("── " + reply.value("provider", "cloud") + " (" + reply.value("model", "") + "):\n" + response);
    history.push_back({{"role", "assistant"}, {"content", response}});
    endLine();
    print(status(reply, cloud) + "\n");
  }

  /// "[local · confidence 0.76 (entropy) · 3 tokens · 41.2 tok/s]", or where a cloud answer came from and why.
  std::string status(const json &reply, bool cloud) const {
    std::string line = cloud ? "[cloud" : "[local";
    const json &confidence = reply["confidence"];
    line += confidence.is_number() ? " · " + std::string(cloud ? "local " : "") + "confidence " +
                                         fixed(confidence.get<double>(), 2) + " (" +
                                         reply.value("confidence_source", "entropy") + ")"
                                   : " · no confidence";
    if (!cloud)
      line += " · " + std::to_string(reply.value("decode_tokens", 0)) + " tokens · " +
              fixed(reply.value("decode_tps", 0.0), 1) + " tok/s";
    if (reply.contains("handoff_reason") && reply["handoff_reason"].is_string())
      line += " · " + reply["handoff_reason"].get<std::string>();
    if (reply.contains("error") && reply["error"].is_string())
      line += " · hand-off failed: " + reply["error"].get<std::string>();
    return line + "]";
  }

  BundleProcess process;
  std::string system;
  json history = json::array();
  std::vector<std::string> images, audio; // attachments for the next user message
  json local, policy;
  bool hybrid, hasVision, hasAudio;
};
} // namespace

int saguaro::runChat(const ChatOptions &o) {
  try {
    json local = o.options.local;
    local["auto_handoff"] = false; // the policy is applied here, once
    auto exe = buildBundle(o.bundle);
    if (!exe) {
      llvm::errs() << "saguaro: " << llvm::toString(exe.takeError()) << "\n";
      return 1;
    }
    auto manifest = readBundleManifest(o.bundle);
    if (!manifest) {
      llvm::errs() << "saguaro: " << llvm::toString(manifest.takeError()) << "\n";
      return 1;
    }
    std::signal(SIGPIPE, SIG_IGN); // a program that died is an error to report, not a reason to die
    struct sigaction interrupt = {};
    interrupt.sa_handler = onInterrupt;
    interrupt.sa_flags = SA_RESTART;
    sigaction(SIGINT, &interrupt, nullptr);

    ChatSession session(o, *exe, *manifest, local, o.options.policy);
    print("saguaro chat: " + o.name + (o.options.policy.empty() ? "" : " (with the hand-off policy of --options)") +
          "; /help lists the commands, Ctrl-C stops a reply, Ctrl-D leaves\n");
    for (std::string line;;) {
      gAtPrompt = true; // before the prompt shows: a Ctrl-C typed once it is visible must find it set
      print("> ");
      const bool read = static_cast<bool>(std::getline(std::cin, line));
      gAtPrompt = false;
      if (!read) {
        print("\n");
        break;
      }
      if (!session.handle(line))
        break;
    }
    return 0;
  } catch (const std::exception &e) {
    llvm::errs() << "saguaro: " << e.what() << "\n";
    return 1;
  }
}
