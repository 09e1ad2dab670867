// A deliberately misbehaving HTTP server on loopback, on raw POSIX sockets so each fault is exact (a byte per
// second, a short body, silence). One thread accepts; each connection gets its own thread.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace saguaro::handoff::test {

enum class FakeBehavior {
  Ok,                    // 200 with ok_body
  NeverAnswer,           // reads the request, then says nothing until the server stops
  Always500,             // 500 with a JSON error object, every time
  TooManyThenOk,         // first request 429 with Retry-After: 1, then Ok
  TooManyLongRetryAfter, // 429 with Retry-After: 3600, every time
  MalformedJson,         // 200 whose body is not JSON
  Drip,                  // a valid 200 response, sent one byte per second
  CloseMidBody,          // Content-Length: 1000, then 20 bytes, then close
  EchoAuth401,           // 401 whose error message repeats the Authorization / x-api-key header values
  SlowErrorThenSilence,  // first request: 503 after 800 ms; later requests: NeverAnswer
};

class FakeCloudServer {
 public:
  explicit FakeCloudServer(FakeBehavior behavior, std::string ok_body = default_ok_body());
  ~FakeCloudServer();
  FakeCloudServer(const FakeCloudServer&) = delete;
  FakeCloudServer& operator=(const FakeCloudServer&) = delete;

  int port() const { return port_; }
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }
  int requests_seen() const { return requests_.load(); }
  std::vector<std::string> raw_requests() const;

  // An OpenAI chat.completion with content "cloud answer" and usage 10 + 5.
  static std::string default_ok_body();

 private:
  void accept_loop();
  void serve_connection(int fd);
  bool send_all(int fd, const std::string& data);

  FakeBehavior behavior_;
  std::string ok_body_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> requests_{0};
  std::thread acceptor_;
  mutable std::mutex mutex_;
  std::vector<std::thread> connections_;
  std::vector<std::string> raw_requests_;
};

// A port on 127.0.0.1 where nothing listens (bound, then closed).
int unused_loopback_port();

}  // namespace saguaro::handoff::test
