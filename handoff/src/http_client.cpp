#include "saguaro/handoff/http_client.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <mutex>
#include <optional>
#include <random>
#include <thread>

#include <curl/curl.h>

#include "saguaro/handoff/log.h"
#include "saguaro/handoff/redact.h"

namespace saguaro::handoff {
namespace {

using Clock = std::chrono::steady_clock;

// An attempt needs at least this much time to be worth starting; below it we report the budget as spent.
constexpr long long kMinAttemptMs = 50;

void init_curl_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

long long ms_since(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count();
}

struct ResponseSink {
  std::string body;
  std::size_t cap = 0;
  bool overflowed = false;
  std::optional<long long> retry_after_ms;
};

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto* sink = static_cast<ResponseSink*>(user);
  const size_t n = size * count;
  if (sink->body.size() + n > sink->cap) {
    sink->overflowed = true;
    return 0;  // makes curl abort the transfer with CURLE_WRITE_ERROR
  }
  sink->body.append(data, n);
  return n;
}

// Retry-After is either delta-seconds or an HTTP-date (RFC 9110 section 10.2.3).
std::optional<long long> parse_retry_after(std::string value) {
  while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' ')) value.pop_back();
  while (!value.empty() && value.front() == ' ') value.erase(value.begin());
  if (value.empty()) return std::nullopt;
  if (std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    if (value.size() > 9) return std::nullopt;
    return std::stoll(value) * 1000;
  }
  const time_t when = curl_getdate(value.c_str(), nullptr);
  if (when < 0) return std::nullopt;
  return std::max<long long>(0, (static_cast<long long>(when) - static_cast<long long>(std::time(nullptr))) * 1000);
}

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* sink = static_cast<ResponseSink*>(user);
  const size_t n = size * count;
  const std::string line(data, n);
  const std::string name = "retry-after:";
  if (line.size() > name.size() &&
      std::equal(name.begin(), name.end(), line.begin(),
                 [](char a, char b) { return a == std::tolower(static_cast<unsigned char>(b)); })) {
    sink->retry_after_ms = parse_retry_after(line.substr(name.size()));
  }
  return n;
}

struct Attempt {
  CURLcode code = CURLE_OK;
  long status = 0;
  std::string curl_detail;
  ResponseSink sink;
};

Attempt perform_attempt(const HttpRequest& request, const HttpOptions& options, long long remaining_ms) {
  Attempt attempt;
  attempt.sink.cap = options.max_response_bytes;
  CURL* curl = curl_easy_init();
  if (curl == nullptr) {
    attempt.code = CURLE_FAILED_INIT;
    return attempt;
  }
  char error_buffer[CURL_ERROR_SIZE] = {0};
  curl_slist* headers = nullptr;
  headers = curl_slist_append(headers, "Content-Type: application/json");
  headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip eating into the budget
  for (const auto& [name, value] : request.headers) headers = curl_slist_append(headers, (name + ": " + value).c_str());

  curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl, CURLOPT_POST, 1L);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.data());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  // Timeouts must not rely on SIGALRM: the engine is multi-threaded and may own its signals.
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(remaining_ms));
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(std::min(options.connect_timeout_ms, remaining_ms)));
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
  if (!options.ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, options.ca_file.c_str());
  // A redirect would resend the API key header to wherever the server points.
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
#if LIBCURL_VERSION_NUM >= 0x075500
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
#else
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS, static_cast<long>(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
  curl_easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(options.max_response_bytes));
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &attempt.sink);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &attempt.sink);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error_buffer);

  attempt.code = curl_easy_perform(curl);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &attempt.status);
  attempt.curl_detail = error_buffer[0] != '\0' ? error_buffer : curl_easy_strerror(attempt.code);
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  return attempt;
}

std::string describe_failure(const Attempt& a, const HttpOptions& options) {
  if (a.sink.overflowed || a.code == CURLE_FILESIZE_EXCEEDED) {
    return "response larger than the " + std::to_string(options.max_response_bytes) + "-byte limit";
  }
  switch (a.code) {
    case CURLE_OK: return "HTTP " + std::to_string(a.status);
    case CURLE_OPERATION_TIMEDOUT: return "no complete response within the time budget (" + a.curl_detail + ")";
    case CURLE_COULDNT_CONNECT: return "could not connect (" + a.curl_detail + ")";
    case CURLE_COULDNT_RESOLVE_HOST: return "could not resolve host (" + a.curl_detail + ")";
    case CURLE_PEER_FAILED_VERIFICATION: return "TLS certificate verification failed (" + a.curl_detail + ")";
    case CURLE_SSL_CONNECT_ERROR: return "TLS handshake failed (" + a.curl_detail + ")";
    case CURLE_PARTIAL_FILE: return "connection closed before the whole response arrived (" + a.curl_detail + ")";
    case CURLE_GOT_NOTHING: return "server closed the connection without a response";
    case CURLE_UNSUPPORTED_PROTOCOL: return "unsupported URL scheme (" + a.curl_detail + ")";
    default: return a.curl_detail;
  }
}

// Worth another attempt: the server or the path may recover (RFC 9110 lets 408/429/5xx be retried; connection
// drops are what a flaky link looks like). TLS and 4xx failures will fail the same way again.
bool is_retryable(const Attempt& a) {
  if (a.sink.overflowed) return false;
  switch (a.code) {
    case CURLE_OK: return a.status == 408 || a.status == 429 || a.status >= 500;
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_GOT_NOTHING:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_PARTIAL_FILE: return true;
    default: return false;
  }
}

long long backoff_ms(const HttpOptions& options, int attempt) {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  long long base = options.backoff_initial_ms;
  for (int i = 1; i < attempt && base < options.backoff_max_ms; ++i) base *= 2;
  base = std::min(base, options.backoff_max_ms);
  // "Equal jitter": half fixed, half random, so clients that failed together do not retry together.
  std::uniform_int_distribution<long long> jitter(0, std::max<long long>(0, base / 2));
  return base / 2 + jitter(rng);
}

bool has_http_scheme(const std::string& url) {
  return url.compare(0, 7, "http://") == 0 || url.compare(0, 8, "https://") == 0;
}

}  // namespace

HttpResult http_post(const HttpRequest& request, const HttpOptions& options) {
  init_curl_once();
  const Clock::time_point start = Clock::now();
  HttpResult result;
  if (!has_http_scheme(request.url)) {
    result.error = redact("refusing URL without http:// or https:// scheme: " + request.url);
    return result;
  }
  const int max_attempts = std::max(1, options.max_attempts);
  // The error is "<last failure>[; <why there was no further attempt>][ after N attempts]".
  for (int n = 1; n <= max_attempts; ++n) {
    const long long remaining = options.total_budget_ms - ms_since(start);
    if (remaining < kMinAttemptMs) {
      if (result.error.empty()) result.error = "no time left in the budget of " + std::to_string(options.total_budget_ms) + " ms";
      break;
    }
    Attempt a = perform_attempt(request, options, remaining);
    result.attempts = n;
    result.http_status = a.code == CURLE_OK ? a.status : 0;
    const bool success = a.code == CURLE_OK && !a.sink.overflowed && a.status >= 200 && a.status < 300;
    result.body = success ? redact_known_secrets(std::move(a.sink.body)) : redact(std::move(a.sink.body));
    if (success) {
      result.ok = true;
      result.error.clear();
      break;
    }
    result.error = describe_failure(a, options);
    if (!is_retryable(a) || n == max_attempts) break;
    long long wait = backoff_ms(options, n);
    if (a.sink.retry_after_ms) {
      if (*a.sink.retry_after_ms + kMinAttemptMs > options.total_budget_ms - ms_since(start)) {
        result.error += "; Retry-After " + std::to_string(*a.sink.retry_after_ms / 1000) +
                        " s does not fit in the remaining time budget";
        break;
      }
      wait = std::max(wait, *a.sink.retry_after_ms);
    }
    if (ms_since(start) + wait + kMinAttemptMs > options.total_budget_ms) {
      // A timeout already says the budget ran out; other failures get told why they were not retried.
      if (a.code != CURLE_OPERATION_TIMEDOUT) result.error += "; no time left in the budget for another attempt";
      break;
    }
    log_line("attempt " + std::to_string(n) + " failed: " + result.error + "; retrying in " + std::to_string(wait) +
             " ms");
    std::this_thread::sleep_for(std::chrono::milliseconds(wait));
  }
  if (!result.ok && result.attempts > 1) result.error += " after " + std::to_string(result.attempts) + " attempts";
  result.error = redact(result.error);
  result.elapsed_ms = ms_since(start);
  return result;
}

bool is_loopback_host(const std::string& host) {
  return host == "localhost" || host.compare(0, 4, "127.") == 0 || host == "[::1]" || host == "::1";
}

}  // namespace saguaro::handoff
