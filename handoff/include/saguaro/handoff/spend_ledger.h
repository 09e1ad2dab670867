// A small file counting cloud handoffs and tokens over rolling hour and day windows, shared by every process of
// the user. Every operation holds an exclusive flock on "<path>.lock" and rewrites the file atomically, so
// concurrent processes never lose a count.
#pragma once

#include <optional>
#include <string>

#include "saguaro/handoff/environment.h"
#include "saguaro/handoff/options.h"

namespace saguaro::handoff {

// The first cap the usage plus one more request of request_tokens would break, as a one-line reason, or nullopt.
std::optional<std::string> cap_exceeded(const SpendWindows& usage, const SpendWindows& caps, long long request_tokens);

// <state dir>/spend-ledger.json
std::string default_spend_ledger_path(const EnvLookup& env);

class SpendLedger {
 public:
  // Does not touch the file; the first operation creates it (and its directory) when missing. lock_wait_ms bounds
  // how long one operation waits for another process's lock before failing.
  explicit SpendLedger(std::string path, long long lock_wait_ms = 1000);

  // All operations throw HandoffError, naming the file, when it is corrupt or cannot be locked in time; callers
  // treat that as "no handoff" (fail closed).
  SpendWindows usage(long long now_ms) const;

  struct Reservation {
    bool granted = false;
    std::string id;      // pass to settle() when granted
    std::string refusal; // the cap that refused it otherwise
  };
  // Checks the caps with reserved_tokens counted in, and records one handoff holding reserved_tokens, in one
  // locked step, so a burst of processes cannot overshoot a cap.
  Reservation reserve(const SpendWindows& caps, long long reserved_tokens, long long now_ms);

  // Replaces the reservation's tokens with what the provider reported. The handoff itself stays counted, also
  // for failed requests. An unknown id (e.g. pruned after a day) is ignored.
  void settle(const std::string& reservation_id, long long actual_tokens);

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  long long lock_wait_ms_;
};

}  // namespace saguaro::handoff
