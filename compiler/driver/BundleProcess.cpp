//===- BundleProcess.cpp - A bundle program in --serve-stdio mode, driven over pipes ---===//
#include "compiler/driver/BundleProcess.h"

#include "saguaro/handoff/chat_server.h"
#include "saguaro/handoff/error.h"

#include <csignal>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char **environ;

using nlohmann::json;
using saguaro::BundleProcess;

BundleProcess::BundleProcess(std::string exe, std::string bundle, std::string threads, bool ownProcessGroup)
    : exe(std::move(exe)), bundle(std::move(bundle)), threads(std::move(threads)), ownProcessGroup(ownProcessGroup) {}

BundleProcess::~BundleProcess() { stop(); }

json BundleProcess::respond(const json &messages, const json &options,
                            const std::function<bool(const std::string &)> &onToken) {
  if (!in && !start())
    throw handoff::HandoffError(bundle + ": cannot start the bundle program");
  json request = {{"messages", messages}, {"options", options}};
  std::string line = request.dump() + "\n";
  if (std::fwrite(line.data(), 1, line.size(), in) != line.size() || std::fflush(in) != 0) {
    stop();
    throw handoff::HandoffError(bundle + ": the bundle program stopped");
  }
  bool forward = true;
  for (std::string reply; readLine(reply);) {
    json j = json::parse(reply, nullptr, false);
    if (j.is_discarded())
      continue;
    if (j.contains("token")) {
      // A caller that wants no more (a client that left): the program stops generating and its answer is read to
      // the end.
      if (forward && !(forward = onToken(j["token"].get<std::string>())))
        interrupt();
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

void BundleProcess::interrupt() const {
  const pid_t child = pid;
  if (child > 0)
    kill(child, SIGUSR1);
}

bool BundleProcess::start() {
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
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  if (ownProcessGroup) {
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attributes, 0);
  }
  std::string blob = bundle + "/weights.sgw";
  std::vector<char *> argv = {exe.data(), blob.data(), const_cast<char *>("--serve-stdio"),
                              const_cast<char *>("--threads"), threads.data(), nullptr};
  pid_t child = -1;
  int rc = posix_spawn(&child, exe.c_str(), &actions, &attributes, argv.data(), environ);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  close(toChild[0]), close(fromChild[1]);
  if (rc != 0) {
    close(toChild[1]), close(fromChild[0]);
    return false;
  }
  pid = child;
  in = fdopen(toChild[1], "w");
  out = fdopen(fromChild[0], "r");
  return in && out;
}

bool BundleProcess::readLine(std::string &line) {
  line.clear();
  for (int c; (c = std::fgetc(out)) != EOF;) {
    if (c == '\n')
      return true;
    line.push_back(static_cast<char>(c));
  }
  return false;
}

void BundleProcess::stop() {
  if (in)
    std::fclose(in); // end of input: the program exits
  if (out)
    std::fclose(out);
  in = out = nullptr;
  const pid_t child = pid;
  pid = -1;
  if (child > 0)
    waitpid(child, nullptr, 0);
}
