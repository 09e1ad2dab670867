#include "fake_cloud_server.h"

#include <arpa/inet.h>
#include <chrono>
#include <cstring>
#include <netinet/in.h>
#include <poll.h>
#include <stdexcept>
#include <sys/socket.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

namespace saguaro::handoff::test {
namespace {

std::string http_response(int status, const std::string& reason, const std::string& body,
                          const std::string& extra_headers = "") {
  return "HTTP/1.1 " + std::to_string(status) + " " + reason + "\r\nContent-Type: application/json\r\n" +
         "Content-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n" + extra_headers + "\r\n" + body;
}

std::string header_value(const std::string& request, const std::string& name) {
  std::string lower = request;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const size_t at = lower.find("\r\n" + name + ":");
  if (at == std::string::npos) return "";
  size_t start = at + 3 + name.size();
  while (start < request.size() && request[start] == ' ') ++start;
  return request.substr(start, request.find("\r\n", start) - start);
}

}  // namespace

std::string FakeCloudServer::default_ok_body() {
  return nlohmann::json{{"id", "chatcmpl-fake"},
                        {"object", "chat.completion"},
                        {"choices", {{{"index", 0},
                                      {"message", {{"role", "assistant"}, {"content", "cloud answer"}}},
                                      {"finish_reason", "stop"}}}},
                        {"usage", {{"prompt_tokens", 10}, {"completion_tokens", 5}, {"total_tokens", 15}}}}
      .dump();
}

FakeCloudServer::FakeCloudServer(FakeBehavior behavior, std::string ok_body)
    : behavior_(behavior), ok_body_(std::move(ok_body)) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listen_fd_, 64) != 0) {
    throw std::runtime_error("fake server: cannot listen");
  }
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread([this] { accept_loop(); });
}

FakeCloudServer::~FakeCloudServer() {
  stopping_ = true;
  acceptor_.join();
  ::close(listen_fd_);
  std::vector<std::thread> connections;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    connections.swap(connections_);
  }
  for (std::thread& t : connections) t.join();
}

std::vector<std::string> FakeCloudServer::raw_requests() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return raw_requests_;
}

void FakeCloudServer::accept_loop() {
  while (!stopping_) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    std::lock_guard<std::mutex> lock(mutex_);
    connections_.emplace_back([this, fd] {
      serve_connection(fd);
      ::close(fd);
    });
  }
}

bool FakeCloudServer::send_all(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

void FakeCloudServer::serve_connection(int fd) {
  // Read the head, then Content-Length bytes of body, giving up when the server stops.
  std::string request;
  size_t head_end = std::string::npos;
  size_t want = 0;
  while (!stopping_) {
    if (head_end != std::string::npos && request.size() >= head_end + 4 + want) break;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    char buf[4096];
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return;
    request.append(buf, static_cast<size_t>(n));
    // A TLS ClientHello sent to this plain-HTTP port: answer like nginx does, in plain HTTP.
    if (static_cast<unsigned char>(request[0]) == 0x16) {
      send_all(fd, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
      return;
    }
    if (head_end == std::string::npos && (head_end = request.find("\r\n\r\n")) != std::string::npos) {
      const std::string length = header_value(request, "content-length");
      want = length.empty() ? 0 : std::stoul(length);
    }
  }
  if (stopping_) return;
  const int n = ++requests_;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    raw_requests_.push_back(request);
  }
  switch (behavior_) {
    case FakeBehavior::Ok:
      send_all(fd, http_response(200, "OK", ok_body_));
      return;
    case FakeBehavior::NeverAnswer:
      while (!stopping_) std::this_thread::sleep_for(std::chrono::milliseconds(20));
      return;
    case FakeBehavior::Always500:
      send_all(fd, http_response(500, "Internal Server Error", R"({"error":{"message":"the fake is broken"}})"));
      return;
    case FakeBehavior::TooManyThenOk:
      send_all(fd, n == 1 ? http_response(429, "Too Many Requests", R"({"error":{"message":"slow down"}})",
                                          "Retry-After: 1\r\n")
                          : http_response(200, "OK", ok_body_));
      return;
    case FakeBehavior::TooManyLongRetryAfter:
      send_all(fd, http_response(429, "Too Many Requests", R"({"error":{"message":"slow down"}})",
                                 "Retry-After: 3600\r\n"));
      return;
    case FakeBehavior::MalformedJson:
      send_all(fd, http_response(200, "OK", "{\"choices\": [ this is not json"));
      return;
    case FakeBehavior::Drip: {
      const std::string response = http_response(200, "OK", ok_body_);
      for (size_t i = 0; i < response.size() && !stopping_; ++i) {
        if (!send_all(fd, response.substr(i, 1))) return;
        for (int slept = 0; slept < 1000 && !stopping_; slept += 20) {
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
      }
      return;
    }
    case FakeBehavior::CloseMidBody:
      send_all(fd, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n" +
                       ok_body_.substr(0, 20));
      return;
    case FakeBehavior::SlowErrorThenSilence:
      if (n == 1) {
        for (int slept = 0; slept < 800 && !stopping_; slept += 20) {
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        send_all(fd, http_response(503, "Service Unavailable", R"({"error":{"message":"warming up"}})"));
        return;
      }
      while (!stopping_) std::this_thread::sleep_for(std::chrono::milliseconds(20));
      return;
    case FakeBehavior::EchoAuth401: {
      const std::string echoed = header_value(request, "authorization") + " " + header_value(request, "x-api-key") +
                                 " " + header_value(request, "x-goog-api-key");
      const nlohmann::json body = {{"error", {{"message", "Invalid credentials: " + echoed}, {"type", "auth"}}}};
      send_all(fd, http_response(401, "Unauthorized", body.dump(), "X-Echo-Key: " + echoed + "\r\n"));
      return;
    }
  }
}

int unused_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

}  // namespace saguaro::handoff::test
