//===- BundleProcess.h - A bundle program in --serve-stdio mode, driven over pipes -----===//
//
// `saguaro serve` and `saguaro chat` keep one model loaded for a whole session: the bundle's own program runs in
// `--serve-stdio` mode (one JSON request per line on its stdin; `{"token"}` lines as the text is generated, then
// `{"response"}` or `{"error"}`), restarted when it has died. Compiled with exceptions (it throws handoff's).
//
//===------------------------------------------------------------------------------------===//
#ifndef SAGUARO_COMPILER_DRIVER_BUNDLEPROCESS_H
#define SAGUARO_COMPILER_DRIVER_BUNDLEPROCESS_H

#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <sys/types.h>

namespace saguaro {

class BundleProcess {
public:
  /// `exe` is the bundle's built program; `ownProcessGroup` starts it in a process group of its own, so that a
  /// terminal's Ctrl-C reaches only the caller, which decides what it means (interrupt()).
  BundleProcess(std::string exe, std::string bundle, std::string threads, bool ownProcessGroup = false);
  ~BundleProcess();
  BundleProcess(const BundleProcess &) = delete;
  BundleProcess &operator=(const BundleProcess &) = delete;

  /// saguaro_complete's response JSON for `messages` under `options`; each piece goes to onToken as the program
  /// prints it (onToken returning false stops forwarding and interrupts the generation). Throws handoff::InvalidRequest for
  /// the request's own problems (errors naming messages_json or options_json) and handoff::HandoffError otherwise.
  nlohmann::json respond(const nlohmann::json &messages, const nlohmann::json &options,
                         const std::function<bool(const std::string &)> &onToken);

  /// Ends the running generation after its current token (SIGUSR1, which the program turns into saguaro_stop); its
  /// response then has "stopped": true. Async-signal-safe: only kill(2) on a pid read once.
  void interrupt() const;

private:
  bool start();
  bool readLine(std::string &line);
  void stop();

  std::string exe, bundle, threads;
  bool ownProcessGroup;
  FILE *in = nullptr, *out = nullptr;
  volatile pid_t pid = -1;
};

} // namespace saguaro

#endif // SAGUARO_COMPILER_DRIVER_BUNDLEPROCESS_H
