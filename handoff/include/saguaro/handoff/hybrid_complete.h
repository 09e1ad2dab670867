// The hybrid answer behind saguaro_complete: the local answer first, then the cloud when the policy says so, and
// the local answer again whenever anything about the cloud fails.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "saguaro/handoff/environment.h"
#include "saguaro/handoff/message.h"
#include "saguaro/handoff/options.h"

namespace saguaro::handoff {

struct LocalAnswer {
  std::string text;
  double confidence = 0.0;  // probability the local answer is right (probe, or entropy fallback)
};

struct HybridHooks {
  std::string task_tag;  // selects options.routes[task_tag] when present
  // OpenAI tools the request offered (null: none): sent to the cloud in its provider's form; the cloud's calls come
  // back as "tool_calls" (and "finish_reason": "tool_calls") in OpenAI's shape.
  nlohmann::json tools;
  nlohmann::json tool_choice;  // the request's OpenAI tool_choice (null: "auto"), sent in the provider's form
  // Receives the final answer's text (the local one, or the cloud one after a handoff). The cloud reply arrives
  // whole, so it comes as one piece.
  std::function<void(const std::string& text)> on_text;
  EnvLookup env = process_environment();
};

// Returns {"response", "cloud_handoff", "confidence", "error", "local_response", "provider", "model",
// "cloud_tokens": {"prompt","completion","total"}, "timings": {"local_ms","cloud_ms","total_ms"},
// "handoff_reason", "dropped_attachments": {"images","audio"}} and, in a dry run, "dry_run_request".
// Never throws for cloud or policy problems: they land in "error" with the local answer as "response".
// Exceptions from generate_local (the engine's own failures) propagate unchanged.
nlohmann::json hybrid_complete(const std::vector<Message>& messages, const HandoffOptions& options,
                               const std::function<LocalAnswer()>& generate_local, const HybridHooks& hooks = {});

// The same from raw JSON (what `saguaro complete --messages ... --options ...` has in hand). Malformed messages
// or options also produce the local answer with "error" set, when a local answer can be made.
nlohmann::json hybrid_complete_json(const nlohmann::json& messages, const nlohmann::json& options,
                                    const std::function<LocalAnswer()>& generate_local,
                                    const HybridHooks& hooks = {});

// The response of saguaro_complete with --handoff and of `saguaro complete` (test/schema/response.schema.json):
// the orchestrator's `hybrid` over the local generation's response or statistics `local` (confidence_source,
// probe_ms, token counts, speeds, ram_usage_mb), with "success": true and total_time_ms = timings.total_ms (the
// local generation, the policy and the cloud).
nlohmann::json with_local_statistics(nlohmann::json local, const nlohmann::json& hybrid);

}  // namespace saguaro::handoff
