// cpp-httplib's server with the connection limits it lacks. Its socket timeouts are per read, so a client that
// trickles a byte a second holds a worker for as long as it likes, and it stores any number of header lines. Here
// every request must arrive whole within a deadline and its header within a size, on each connection's own stream;
// the rest (parsing, routing, keep-alive count, the drain of stop()) stays cpp-httplib's.
#pragma once

#include <chrono>
#include <cstddef>

#include <httplib.h>

namespace saguaro::handoff {

struct HttpLimits {
  // From the connection's first byte (or the first byte after the previous response) to the request's last byte.
  std::chrono::milliseconds request_timeout{10000};
  // The request line and the headers, their CRLFs included.
  size_t max_header_bytes = 64 * 1024;
  // One read or write waiting for the socket; a write that cannot go out in this time ends the connection.
  std::chrono::milliseconds io_timeout{5000};
  // How long an idle keep-alive connection waits for its next request, and how many requests it may make.
  std::chrono::milliseconds keep_alive_timeout{5000};
  int keep_alive_requests = 5;
};

// Why the request the calling thread is serving was cut off (none: it was not).
enum class RequestBreach { kNone, kTimeout, kHeaderTooLarge };

// For an error handler: what the connection the calling thread serves broke, if anything. kNone on other threads.
RequestBreach current_request_breach();

class BoundedHttpServer : public httplib::Server {
 public:
  explicit BoundedHttpServer(HttpLimits limits = {}) : limits_(limits) {}
  const HttpLimits& limits() const { return limits_; }

 private:
  // cpp-httplib calls this on a worker for each accepted connection (a private virtual, overridable).
  bool process_and_close_socket(socket_t sock) override;

  HttpLimits limits_;
};

}  // namespace saguaro::handoff
