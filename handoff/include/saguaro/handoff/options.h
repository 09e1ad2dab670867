// The handoff options: parsed from the options JSON of saguaro_complete, with the environment filling the cloud
// target when the JSON does not name it. docs/handoff.md has the table.
#pragma once

#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "saguaro/handoff/environment.h"
#include "saguaro/handoff/provider.h"

namespace saguaro::handoff {

// Cloud handoffs and their prompt + completion tokens within one rolling window.
struct Spend {
  long long handoffs = 0;
  long long tokens = 0;
};

// Spend over the last hour and the last day: the caps (HandoffOptions::caps) and what the spend ledger counted.
struct SpendWindows {
  Spend hour;
  Spend day;
};

// The four caps: the option key and the window and count each one limits, in the order cap_exceeded checks them.
struct SpendCap {
  const char* key;
  Spend SpendWindows::*window;
  long long Spend::*count;
};
inline constexpr SpendCap kSpendCaps[] = {
    {"max_handoffs_per_hour", &SpendWindows::hour, &Spend::handoffs},
    {"max_handoffs_per_day", &SpendWindows::day, &Spend::handoffs},
    {"max_cloud_tokens_per_hour", &SpendWindows::hour, &Spend::tokens},
    {"max_cloud_tokens_per_day", &SpendWindows::day, &Spend::tokens},
};

// A per-task cloud target; fields left unset fall back to the top-level ones (see resolve_target).
struct CloudRoute {
  std::optional<std::string> provider;
  std::optional<std::string> base_url;
  std::optional<std::string> model;
};

struct HandoffOptions {
  std::string cloud_provider;  // empty: no cloud configured
  std::string cloud_base_url;  // empty: the provider's default
  std::string cloud_model;
  std::string cloud_ca_file;   // extra CA bundle (tests, private gateways)
  long long cloud_timeout_ms = 20000;
  double confidence_threshold = 0.5;
  bool auto_handoff = true;
  long long max_cloud_tokens = 1024;
  SpendWindows caps = {{60, 200000}, {500, 1000000}};
  std::map<std::string, CloudRoute> routes;
  bool send_images = false;
  bool send_audio = false;
  bool dry_run = false;
  std::string dry_run_path;       // empty: the would-be request goes only into the result
  std::string spend_ledger_path;  // default under the state directory; empty when HOME is unknown (no handoff)
};

// Throws HandoffError on an unknown key, a wrong type or an out-of-range value, naming the key.
HandoffOptions parse_options(const nlohmann::json& options, const EnvLookup& env = process_environment());

struct CloudTarget {
  ProviderKind provider = ProviderKind::OpenAI;
  std::string base_url;  // never empty: the provider default when not configured
  std::string model;
};

// The target for a task tag: the route for that tag when there is one, else the top-level target. A route that
// switches provider does not inherit the top-level base URL or model (they belong to another API). Returns
// nullopt and sets *why when no complete target is configured.
std::optional<CloudTarget> resolve_target(const HandoffOptions& options, const std::string& task_tag,
                                          std::string* why);

}  // namespace saguaro::handoff
