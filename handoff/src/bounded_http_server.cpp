#include "bounded_http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

namespace saguaro::handoff {
namespace {

using Clock = std::chrono::steady_clock;

// One connection's socket as cpp-httplib's Stream, reading under the current request's deadline and header budget.
class ConnectionStream final : public httplib::Stream {
 public:
  ConnectionStream(int sock, const HttpLimits& limits) : sock_(sock), limits_(limits) {}

  // The budget of the next request starts now (its first byte is waiting).
  void begin_request() {
    deadline_ = Clock::now() + limits_.request_timeout;
    header_bytes_ = 0, header_tail_ = 0, in_header_ = true;
  }
  RequestBreach breach() const { return breach_; }

  bool is_readable() const override { return wait(POLLIN, limits_.io_timeout) > 0; }
  // cpp-httplib asks before every write: a client that closed its end is gone (its stream generator stops).
  bool is_writable() const override { return wait(POLLOUT, limits_.io_timeout) > 0 && peer_open(); }

  ssize_t read(char* ptr, size_t size) override {
    if (breach_ != RequestBreach::kNone) return -1;
    if (buffer_at_ == buffer_end_ && !fill()) return -1;
    size_t n = std::min(size, buffer_end_ - buffer_at_);
    if (in_header_ && !count_header(buffer_ + buffer_at_, &n)) return -1;
    std::memcpy(ptr, buffer_ + buffer_at_, n);
    buffer_at_ += n;
    return static_cast<ssize_t>(n);
  }

  ssize_t write(const char* ptr, size_t size) override {
    if (!is_writable()) return -1;
    return ::send(sock_, ptr, size, MSG_NOSIGNAL);
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override { address(&getpeername, ip, port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override { address(&getsockname, ip, port); }
  socket_t socket() const override { return sock_; }

 private:
  using NameFn = int (*)(int, sockaddr*, socklen_t*);

  int wait(short events, std::chrono::milliseconds timeout) const {
    pollfd p{sock_, events, 0};
    int rc;
    do rc = ::poll(&p, 1, static_cast<int>(timeout.count()));
    while (rc < 0 && errno == EINTR);
    return rc;
  }
  bool peer_open() const {
    char byte;
    const ssize_t n = ::recv(sock_, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    return n > 0 || (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
  }
  // Waits for bytes no longer than the request's deadline (and one read's timeout) allows.
  bool fill() {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline_ - Clock::now());
    if (left.count() <= 0) return breach_ = RequestBreach::kTimeout, false;
    if (wait(POLLIN, std::min(left, limits_.io_timeout)) <= 0) {
      if (Clock::now() >= deadline_) breach_ = RequestBreach::kTimeout;
      return false;
    }
    const ssize_t n = ::recv(sock_, buffer_, sizeof buffer_, 0);
    if (n <= 0) return false;
    buffer_at_ = 0, buffer_end_ = static_cast<size_t>(n);
    return true;
  }
  // Counts the header bytes among the next *n (cut at the blank line that ends the header); false past the budget.
  bool count_header(const char* bytes, size_t* n) {
    for (size_t i = 0; i < *n; ++i) {
      header_tail_ = (header_tail_ << 8) | static_cast<unsigned char>(bytes[i]);
      if (++header_bytes_ > limits_.max_header_bytes) return breach_ = RequestBreach::kHeaderTooLarge, false;
      if ((header_tail_ & 0xffffffffu) == 0x0d0a0d0au) {  // "\r\n\r\n"
        in_header_ = false;
        break;
      }
    }
    return true;
  }
  void address(NameFn name, std::string& ip, int& port) const {
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    ip.clear(), port = 0;
    if (name(sock_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return;
    char text[INET6_ADDRSTRLEN] = "";
    if (addr.ss_family == AF_INET) {
      auto* in = reinterpret_cast<sockaddr_in*>(&addr);
      inet_ntop(AF_INET, &in->sin_addr, text, sizeof text), port = ntohs(in->sin_port);
    } else if (addr.ss_family == AF_INET6) {
      auto* in = reinterpret_cast<sockaddr_in6*>(&addr);
      inet_ntop(AF_INET6, &in->sin6_addr, text, sizeof text), port = ntohs(in->sin6_port);
    }
    ip = text;
  }

  int sock_;
  const HttpLimits& limits_;
  Clock::time_point deadline_;
  size_t header_bytes_ = 0;
  unsigned long long header_tail_ = 0;
  bool in_header_ = true;
  RequestBreach breach_ = RequestBreach::kNone;
  char buffer_[4096];
  size_t buffer_at_ = 0, buffer_end_ = 0;
};

thread_local const ConnectionStream* t_connection = nullptr;

}  // namespace

RequestBreach current_request_breach() { return t_connection ? t_connection->breach() : RequestBreach::kNone; }

bool BoundedHttpServer::process_and_close_socket(socket_t sock) {
  ConnectionStream stream(sock, limits_);
  t_connection = &stream;
  // The next request's first byte, waited for in slices so that stop() does not wait out idle keep-alive
  // connections; a connection accepted before stop() still has its first request answered.
  auto next_request = [&](bool first) {
    const auto end = Clock::now() + (first ? limits_.request_timeout : limits_.keep_alive_timeout);
    while ((first || svr_sock_ != INVALID_SOCKET) && Clock::now() < end) {
      pollfd p{sock, POLLIN, 0};
      const int rc = ::poll(&p, 1, 50);
      if (rc > 0) return true;
      if (rc < 0 && errno != EINTR) return false;
    }
    return false;
  };
  bool ok = false;
  for (int left = limits_.keep_alive_requests; left > 0 && next_request(left == limits_.keep_alive_requests); --left) {
    stream.begin_request();
    bool closed = false;
    // Once stopping, each answer says Connection: close.
    ok = process_request(stream, left == 1 || svr_sock_ == INVALID_SOCKET, closed, nullptr);
    if (!ok || closed || stream.breach() != RequestBreach::kNone) break;
  }
  t_connection = nullptr;
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  return ok;
}

}  // namespace saguaro::handoff
