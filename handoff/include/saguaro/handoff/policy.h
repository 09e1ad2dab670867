// Whether one answer goes to the cloud, and why (the reason is reported in the response JSON).
#pragma once

#include <optional>
#include <string>

#include "saguaro/handoff/options.h"
#include "saguaro/handoff/spend_ledger.h"

namespace saguaro::handoff {

struct Decision {
  bool handoff = false;   // send the request now
  bool dry_run = false;   // would have sent it, but dry_run is on: record instead
  std::string reason;     // confident | auto_handoff_off | no_cloud_target | cap_reached | ledger_error |
                          // dry_run | below_threshold
  std::string detail;     // one line for people
  std::optional<CloudTarget> target;
};

// Checks in order: confidence (a non-finite confidence counts as low), auto_handoff, the cloud target for the
// task tag, the spend caps for one request of request_tokens, then dry_run. Reads the ledger without reserving;
// the reservation in hybrid_complete is what finally enforces the caps.
Decision decide(double confidence, const std::string& task_tag, const HandoffOptions& options,
                const SpendLedger& ledger, long long request_tokens, long long now_ms);

}  // namespace saguaro::handoff
