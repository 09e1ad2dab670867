#include "saguaro/handoff/policy.h"

#include <cmath>
#include <exception>

namespace saguaro::handoff {

Decision decide(double confidence, const std::string& task_tag, const HandoffOptions& options,
                const SpendLedger& ledger, long long request_tokens, long long now_ms) {
  Decision d;
  // A probe that produced NaN has told us nothing, which is a reason to doubt the local answer, not to trust it.
  if (std::isfinite(confidence) && confidence >= options.confidence_threshold) {
    d.reason = "confident";
    d.detail = "confidence " + std::to_string(confidence) + " >= threshold " +
               std::to_string(options.confidence_threshold);
    return d;
  }
  if (!options.auto_handoff) {
    d.reason = "auto_handoff_off";
    d.detail = "below threshold, but auto_handoff is off";
    return d;
  }
  std::string why;
  d.target = resolve_target(options, task_tag, &why);
  if (!d.target) {
    d.reason = "no_cloud_target";
    d.detail = why;
    return d;
  }
  try {
    if (auto cap = cap_exceeded(ledger.usage(now_ms), options.caps, request_tokens)) {
      d.reason = "cap_reached";
      d.detail = *cap;
      return d;
    }
  } catch (const std::exception& e) {
    d.reason = "ledger_error";
    d.detail = e.what();
    return d;
  }
  if (options.dry_run) {
    d.dry_run = true;
    d.reason = "dry_run";
    d.detail = "below threshold; dry_run records the request instead of sending it";
    return d;
  }
  d.handoff = true;
  d.reason = "below_threshold";
  d.detail = "confidence " + std::to_string(confidence) + " < threshold " + std::to_string(options.confidence_threshold);
  return d;
}

}  // namespace saguaro::handoff
