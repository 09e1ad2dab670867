// A JSON POST over libcurl that always verifies TLS, never outlives its time budget and retries only what is
// worth retrying. See docs/handoff.md, "Retries and the time budget".
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace saguaro::handoff {

struct HttpRequest {
  std::string url;  // http:// or https:// only; redirects are never followed (they would carry the key along)
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

struct HttpOptions {
  long long total_budget_ms = 20000;   // covers every attempt, backoff sleep and Retry-After wait
  long long connect_timeout_ms = 5000;  // per attempt, clipped to what is left of the budget
  int max_attempts = 3;
  long long backoff_initial_ms = 200;  // doubled per retry, with jitter, capped by backoff_max_ms
  long long backoff_max_ms = 4000;
  std::size_t max_response_bytes = 8u << 20;
  std::string ca_file;  // extra trust anchor (tests); verification itself cannot be turned off
};

struct HttpResult {
  bool ok = false;        // a 2xx response was received in full
  long http_status = 0;   // of the last attempt; 0 when no response arrived
  int attempts = 0;
  std::string error;      // one line, redacted; empty when ok
  std::string body;       // the last response body (also for non-2xx), redacted
  long long elapsed_ms = 0;
};

HttpResult http_post(const HttpRequest& request, const HttpOptions& options);

// Whether `host` (as in a URL, IPv6 in brackets, or bare) names this machine: localhost, 127.*, ::1.
bool is_loopback_host(const std::string& host);

}  // namespace saguaro::handoff
