//===- Complete.cpp - `saguaro complete` and `saguaro auth` ---------------------------===//
//
// `complete` gets the local answer and its confidence from the bundle's own program (`--complete`, which calls
// saguaro_complete: the compiled probe, or the token entropy without one), then applies the cloud handoff policy
// of handoff/ (hybrid_complete_json) and prints the response JSON. Compiled with exceptions (the handoff library
// and nlohmann::json use them); nothing escapes this file.
//
//===------------------------------------------------------------------------------------===//
#include "compiler/driver/Complete.h"

#include "compiler/driver/BundleCache.h"
#include "compiler/driver/CompletionJson.h"
#include "compiler/driver/ProgramRun.h"
#include "saguaro/handoff/credentials.h"
#include "saguaro/handoff/error.h"
#include "saguaro/handoff/hybrid_complete.h"
#include "saguaro/handoff/options.h"
#include "saguaro/chat_messages.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

using nlohmann::json;

namespace {
bool writeFile(const std::string &path, const std::string &text) {
  std::ofstream out(path);
  out << text;
  return static_cast<bool>(out);
}

/// The local options' JSON text with the tool list of `--tools FILE` as "tools", its keys in the file's order (the
/// prompt prints each tool as written, and `json` would sort them); false + a one-line error naming the file.
bool withToolsFile(const json &local, const std::string &file, std::string &text, std::string &error) {
  text = local.dump();
  if (file.empty())
    return true;
  if (local.contains("tools"))
    return error = "--tools and --options' \"tools\" are both given", false;
  std::ifstream in(file);
  if (!in)
    return error = file + ": cannot read", false;
  std::string body((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> tools;
  if (!saguaro::parse_chat_tools(body, &tools, &error))
    return error = file + ": " + error, false;
  std::string list = "[";
  for (const std::string &tool : tools)
    list += (list.size() > 1 ? "," : "") + tool;
  text.insert(1, "\"tools\":" + list + "]" + (local.empty() ? "" : ","));
  return true;
}

/// The tools a hand-off sends to the cloud: the local options' tools, unless tool_choice is "none" (null: none).
json toolsOf(const std::string &localText) {
  const json local = json::parse(localText);
  if (!local.contains("tools") || local.value("tool_choice", json(nullptr)) == "none")
    return nullptr;
  return local["tools"];
}
} // namespace

int saguaro::runComplete(const CompleteOptions &o) {
  try {
    json messages, options = json::object(), responseFormat;
    std::string error;
    if (!readJsonArgument(o.messages, "--messages", messages, error) ||
        (!o.options.empty() && !readJsonArgument(o.options, "--options", options, error)) ||
        (!o.responseFormat.empty() &&
         !readJsonArgument(o.responseFormat, "--response-format", responseFormat, error))) {
      llvm::errs() << "saguaro: " << error << "\n";
      return 1;
    }
    if (!messages.is_array() || messages.empty() || !options.is_object()) {
      llvm::errs() << "saguaro: --messages must be a non-empty JSON array and --options a JSON object\n";
      return 1;
    }
    if (!o.responseFormat.empty())
      options["response_format"] = responseFormat; // the bundle program judges it (options_json: response_format)
    json local, policy;
    splitCompletionOptions(options, local, policy);
    handoff::parse_options(policy); // a bad option is the caller's error, reported before anything runs
    // The policy is applied here, once: a bundle compiled with --handoff must not also hand off by itself.
    local["auto_handoff"] = false;
    std::string localText;
    if (!withToolsFile(local, o.tools, localText, error)) {
      llvm::errs() << "saguaro: " << error << "\n";
      return 1;
    }

    auto exe = buildBundle(o.bundle);
    if (!exe) {
      llvm::errs() << "saguaro: " << llvm::toString(exe.takeError()) << "\n";
      return 1;
    }
    llvm::SmallString<128> work;
    if (std::error_code ec = llvm::sys::fs::createUniqueDirectory("saguaro-complete", work)) {
      llvm::errs() << "saguaro: cannot create a work directory: " << ec.message() << "\n";
      return 1;
    }
    std::string dir = work.str().str();
    auto cleanup = llvm::make_scope_exit([&] { llvm::sys::fs::remove_directories(dir); });
    std::string msgs = dir + "/messages.json", opts = dir + "/options.json", out = dir + "/response.json",
                log = dir + "/log.txt", blob = o.bundle + "/weights.sgw";
    if (!writeFile(msgs, messages.dump()) || !writeFile(opts, localText)) {
      llvm::errs() << "saguaro: " << dir << ": cannot write\n";
      return 1;
    }

    // The local answer: computed before the policy decides, whatever it decides.
    json localResponse;
    auto generateLocal = [&]() -> handoff::LocalAnswer {
      std::string runError;
      if (runRedirected(*exe, {*exe, blob, "--complete", msgs, "--options", opts, "--threads", o.threads}, out, log,
                        &runError) != 0) {
        // The program's line names the work files this command wrote; the user gave --messages and --options.
        std::string said = readLog(log);
        said = said.substr(0, said.find('\n'));
        for (const std::string &prefix : {std::string("saguaro: "), msgs + ": ", opts + ": "})
          if (said.rfind(prefix, 0) == 0)
            said.erase(0, prefix.size());
        throw handoff::HandoffError(said.empty() ? runError : said);
      }
      std::ifstream in(out);
      json r = json::parse(in, nullptr, false);
      if (r.is_discarded() || !r.value("success", false))
        throw handoff::HandoffError(o.bundle + ": the bundle program gave no response");
      localResponse = r;
      return localAnswerOf(r);
    };
    handoff::HybridHooks hooks;
    hooks.task_tag = o.task;
    hooks.tools = toolsOf(localText);
    hooks.tool_choice = json::parse(localText).value("tool_choice", json(nullptr));
    json hybrid = handoff::hybrid_complete_json(messages, policy, generateLocal, hooks);
    std::cout << handoff::with_local_statistics(localResponse, hybrid).dump(2) << "\n";
    return 0;
  } catch (const std::exception &e) {
    llvm::errs() << "saguaro: " << e.what() << "\n";
    return 1;
  }
}

int saguaro::runAuth(const std::string &provider, const std::string &keyFile) {
  try {
    std::string key;
    if (keyFile == "-") {
      std::getline(std::cin, key);
    } else {
      std::ifstream in(keyFile);
      if (!in) {
        llvm::errs() << "saguaro: " << keyFile << ": cannot read\n";
        return 1;
      }
      std::getline(in, key);
    }
    while (!key.empty() && (key.back() == '\r' || key.back() == ' '))
      key.pop_back();
    if (key.empty()) {
      llvm::errs() << "saguaro: " << (keyFile == "-" ? "standard input" : keyFile) << ": no key\n";
      return 1;
    }
    handoff::store_api_key(provider, key);
    llvm::errs() << "saguaro: stored the " << provider << " key in "
                 << handoff::credentials_file_path(handoff::process_environment()) << " (mode 0600)\n";
    return 0;
  } catch (const std::exception &e) {
    llvm::errs() << "saguaro: " << e.what() << "\n";
    return 1;
  }
}
