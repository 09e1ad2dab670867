// Which keys of saguaro_complete's options JSON belong to the local generation, and which to the cloud handoff
// policy (docs/handoff.md). Shared by the C API (capi.cpp), which hands the local keys to the
// engine, and by `saguaro complete` (compiler/driver/Complete.cpp), which passes only these to the bundle program.
#pragma once

#include <string_view>

namespace saguaro {

inline bool is_local_completion_option(std::string_view key) {
  for (std::string_view k : {"max_tokens", "temperature", "top_k", "top_p", "min_p", "repetition_penalty", "seed",
                             "stop", "max_soft_tokens", "response_format", "tools", "tool_choice", "builtin_tools"})
    if (key == k) return true;
  return false;
}

// The cloud handoff policy's keys (handoff::parse_options reads exactly these: test/unit/handoff/options_test.cpp).
// A bundle compiled without --handoff accepts and ignores the first three, which every bundle always took, and
// refuses the others by name (capi.cpp).
constexpr std::string_view kHandoffPolicyOptions[] = {
    "confidence_threshold",  "auto_handoff",          "cloud_timeout_ms",         "cloud_provider",
    "cloud_base_url",        "cloud_model",           "cloud_ca_file",            "max_cloud_tokens",
    "max_handoffs_per_hour", "max_handoffs_per_day",  "max_cloud_tokens_per_hour", "max_cloud_tokens_per_day",
    "routes",                "send_images",           "send_audio",               "dry_run",
    "dry_run_path",          "spend_ledger_path"};

inline bool is_handoff_policy_option(std::string_view key) {
  for (std::string_view k : kHandoffPolicyOptions)
    if (key == k) return true;
  return false;
}

inline bool is_policy_option_without_handoff(std::string_view key) {
  return key == "confidence_threshold" || key == "auto_handoff" || key == "cloud_timeout_ms";
}

}  // namespace saguaro
