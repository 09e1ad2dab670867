#include "saguaro/handoff/hybrid_complete.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <fcntl.h>
#include <unistd.h>

#include "saguaro/handoff/credentials.h"
#include "saguaro/handoff/error.h"
#include "saguaro/handoff/http_client.h"
#include "saguaro/handoff/log.h"
#include "saguaro/handoff/policy.h"
#include "saguaro/handoff/provider.h"
#include "saguaro/handoff/redact.h"
#include "saguaro/handoff/spend_ledger.h"

namespace saguaro::handoff {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

long long ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(b - a).count();
}

long long wall_clock_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string url_host(const std::string& url) {
  size_t start = url.find("://");
  start = start == std::string::npos ? 0 : start + 3;
  if (start < url.size() && url[start] == '[') return url.substr(start, url.find(']', start) + 1 - start);
  const size_t end = url.find_first_of(":/?#", start);
  return url.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

// The key is required except for a server on this machine (e.g. `saguaro serve`), and is never sent in clear
// text across a network.
std::string api_key_for(const CloudTarget& target, const EnvLookup& env) {
  const bool loopback = is_loopback_host(url_host(target.base_url));
  auto key = resolve_api_key(target.provider, env);
  if (!key) {
    if (loopback) return "";
    throw HandoffError(std::string("no API key for ") + provider_name(target.provider) +
                       " (set SAGUARO_CLOUD_API_KEY or the provider's variable, or run saguaro auth)");
  }
  if (!loopback && target.base_url.compare(0, 7, "http://") == 0) {
    throw HandoffError("refusing to send an API key over plain http:// to " + url_host(target.base_url));
  }
  return key->value;
}

json dry_run_record(const CloudTarget& target, const ChatRequest& chat) {
  ProviderRequest req = build_request(target.provider, target.base_url, "", chat);
  json headers = json::object();
  for (const auto& [name, value] : req.headers) headers[name] = value;
  return {{"provider", provider_name(target.provider)}, {"url", req.url}, {"headers", headers}, {"body", req.body}};
}

void append_line_private(const std::string& path, const std::string& line) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) throw HandoffError("cannot open dry_run_path " + path);
  const bool ok = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  ::close(fd);
  if (!ok) throw HandoffError("cannot write dry_run_path " + path);
}

struct CloudOutcome {
  bool ok = false;
  std::string text;
  json tool_calls = json::array();
  std::string error;
  long long prompt_tokens = 0;
  long long completion_tokens = 0;
  bool usage_reported = false;
  std::vector<std::string> notes;
  bool refused_by_cap = false;
  std::string cap_detail;
};

CloudOutcome ask_cloud(const CloudTarget& target, const ChatRequest& chat, const HandoffOptions& options,
                       SpendLedger& ledger, long long reserve_tokens, const EnvLookup& env, Clock::time_point start) {
  CloudOutcome out;
  const std::string api_key = api_key_for(target, env);
  ProviderRequest req = build_request(target.provider, target.base_url, api_key, chat);
  out.notes = req.notes;

  SpendLedger::Reservation reservation = ledger.reserve(options.caps, reserve_tokens, wall_clock_ms());
  if (!reservation.granted) {
    out.refused_by_cap = true;
    out.cap_detail = reservation.refusal;
    return out;
  }
  HttpOptions http;
  http.total_budget_ms = options.cloud_timeout_ms - ms_between(start, Clock::now());
  http.connect_timeout_ms = std::min<long long>(http.connect_timeout_ms, options.cloud_timeout_ms);
  http.ca_file = options.cloud_ca_file;
  HttpResult response = http_post({req.url, req.headers, req.body.dump()}, http);

  const std::string who = std::string("cloud handoff to ") + provider_name(target.provider) + " failed: ";
  long long settled_tokens = 0;
  if (response.http_status == 0) {
    out.error = who + response.error;
  } else {
    ProviderReply reply = parse_reply(target.provider, response.http_status, response.body);
    if (!reply.ok) {
      // The provider's message says what went wrong; the client's tail says what was tried ("; Retry-After ...",
      // " after 3 attempts"), after its own "HTTP nnn", which the provider's message already starts with.
      const std::string status_prefix = "HTTP " + std::to_string(response.http_status);
      const std::string tail = !response.ok && response.error.compare(0, status_prefix.size(), status_prefix) == 0
                                   ? response.error.substr(status_prefix.size()) : "";
      out.error = who + reply.error + tail;
      // A 2xx we could not read may still have been billed: keep the reservation's count.
      if (response.ok) settled_tokens = reserve_tokens;
    } else {
      out.ok = true;
      out.text = reply.text;
      out.tool_calls = reply.tool_calls;
      out.usage_reported = reply.prompt_tokens && reply.completion_tokens;
      out.prompt_tokens = reply.prompt_tokens.value_or(0);
      out.completion_tokens = reply.completion_tokens.value_or(0);
      // Without reported usage the ledger keeps the reserved amount: overcount rather than undercount.
      settled_tokens = out.usage_reported ? out.prompt_tokens + out.completion_tokens : reserve_tokens;
    }
  }
  try {
    ledger.settle(reservation.id, settled_tokens);
  } catch (const std::exception& e) {
    // The answer is already paid for; losing it would not undo the spend. The reservation's count stays.
    log_line(std::string("could not settle the spend ledger: ") + e.what());
  }
  return out;
}

}  // namespace

json hybrid_complete(const std::vector<Message>& messages, const HandoffOptions& options,
                     const std::function<LocalAnswer()>& generate_local, const HybridHooks& hooks) {
  const Clock::time_point start = Clock::now();
  const LocalAnswer local = generate_local();
  const Clock::time_point local_done = Clock::now();

  json result = {{"response", local.text},
                 {"cloud_handoff", false},
                 {"confidence", local.confidence},
                 {"error", nullptr},
                 {"local_response", local.text},
                 {"provider", nullptr},
                 {"model", nullptr},
                 {"cloud_tokens", {{"prompt", 0}, {"completion", 0}, {"total", 0}}},
                 {"handoff_reason", nullptr},
                 {"handoff_detail", nullptr},
                 {"dropped_attachments", {{"images", 0}, {"audio", 0}}}};
  long long cloud_ms = 0;
  try {
    PrivacyFiltered filtered = apply_privacy_switches(messages, options.send_images, options.send_audio);
    result["dropped_attachments"] = {{"images", filtered.dropped_images}, {"audio", filtered.dropped_audio}};
    const long long reserve_tokens = estimate_prompt_tokens(filtered.messages) + options.max_cloud_tokens;
    // Three ledger operations (read, reserve, settle) may each wait for another process's lock; a quarter of the
    // budget each (at most 1 s) keeps the whole call within cloud_timeout_ms plus one wait for the final settle.
    SpendLedger ledger(options.spend_ledger_path, std::clamp<long long>(options.cloud_timeout_ms / 4, 50, 1000));
    const Decision decision =
        decide(local.confidence, hooks.task_tag, options, ledger, reserve_tokens, wall_clock_ms());
    result["handoff_reason"] = decision.reason;
    result["handoff_detail"] = decision.detail;
    if (decision.reason == "ledger_error") result["error"] = decision.detail;
    if (decision.target && (decision.handoff || decision.dry_run)) {
      const CloudTarget& target = *decision.target;
      result["provider"] = provider_name(target.provider);
      result["model"] = target.model;
      const ChatRequest chat{target.model, filtered.messages, options.max_cloud_tokens, hooks.tools,
                             hooks.tools.is_null() ? json() : hooks.tool_choice};
      if (decision.dry_run) {
        json record = dry_run_record(target, chat);
        if (!options.dry_run_path.empty()) append_line_private(options.dry_run_path, record.dump() + "\n");
        result["dry_run_request"] = std::move(record);
      } else {
        // The budget started when the policy started reading the ledger: cloud_timeout_ms bounds all of it.
        CloudOutcome cloud = ask_cloud(target, chat, options, ledger, reserve_tokens, hooks.env, local_done);
        cloud_ms = ms_between(local_done, Clock::now());
        if (!cloud.notes.empty()) result["notes"] = cloud.notes;
        if (cloud.refused_by_cap) {
          result["handoff_reason"] = "cap_reached";
          result["handoff_detail"] = cloud.cap_detail;
        } else if (!cloud.ok) {
          result["error"] = cloud.error;
        } else {
          result["response"] = cloud.text;
          result["cloud_handoff"] = true;
          if (!hooks.tools.is_null()) {
            result["tool_calls"] = cloud.tool_calls;
            result["finish_reason"] = cloud.tool_calls.empty() ? "stop" : "tool_calls";
          }
          result["cloud_tokens"] = {{"prompt", cloud.prompt_tokens},
                                    {"completion", cloud.completion_tokens},
                                    {"total", cloud.prompt_tokens + cloud.completion_tokens},
                                    {"reported", cloud.usage_reported}};
        }
      }
    }
  } catch (const std::exception& e) {
    result["error"] = redact(e.what());
  }
  if (!result["error"].is_null()) log_line(result["error"].get<std::string>());
  if (hooks.on_text) hooks.on_text(result["response"].get<std::string>());
  result["timings"] = {{"local_ms", ms_between(start, local_done)},
                       {"cloud_ms", cloud_ms},
                       {"total_ms", ms_between(start, Clock::now())}};
  return result;
}

json hybrid_complete_json(const json& messages, const json& options, const std::function<LocalAnswer()>& generate_local,
                          const HybridHooks& hooks) {
  std::string problem;
  std::vector<Message> parsed_messages;
  HandoffOptions parsed_options;
  try {
    parsed_messages = messages_from_json(messages);
  } catch (const std::exception& e) {
    problem = std::string("messages: ") + e.what();
  }
  if (problem.empty()) {
    try {
      parsed_options = parse_options(options, hooks.env);
    } catch (const std::exception& e) {
      problem = std::string("options: ") + e.what();
    }
  }
  if (problem.empty()) return hybrid_complete(parsed_messages, parsed_options, generate_local, hooks);
  // Bad input never reaches the cloud; the user still gets the local answer and the reason.
  HandoffOptions local_only;  // no ledger path: auto_handoff off stops decide() before the ledger is needed
  local_only.auto_handoff = false;
  json result = hybrid_complete(parsed_messages, local_only, generate_local, hooks);
  result["error"] = redact(problem);
  result["handoff_reason"] = "invalid_input";
  result["handoff_detail"] = result["error"];
  return result;
}

json with_local_statistics(json local, const json& hybrid) {
  local.update(hybrid);
  local["total_time_ms"] = hybrid["timings"]["total_ms"];
  local["success"] = true;
  return local;
}

}  // namespace saguaro::handoff
