#include "tls_test_server.h"

#include <arpa/inet.h>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "fake_cloud_server.h"

namespace saguaro::handoff::test {
namespace {

bool accepts_connections(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

}  // namespace

TlsTestServer::TlsTestServer(const std::string& work_dir) {
  cert_ = work_dir + "/cert.pem";
  const std::string key = work_dir + "/key.pem";
  // An EC key is generated in milliseconds; the SAN makes the certificate otherwise valid for 127.0.0.1, so the
  // only thing wrong with it is that nobody trusts its issuer.
  const std::string make_cert = "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 "
                                "-subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout " +
                                key + " -out " + cert_ + " >/dev/null 2>&1";
  if (std::system(make_cert.c_str()) != 0) {
    failure_ = "openssl req failed (is the openssl command installed?)";
    return;
  }
  port_ = unused_loopback_port();
  const std::string accept = "127.0.0.1:" + std::to_string(port_);
  pid_ = ::fork();
  if (pid_ == 0) {
    const int null_fd = ::open("/dev/null", O_RDWR);
    ::dup2(null_fd, 0);
    ::dup2(null_fd, 1);
    ::dup2(null_fd, 2);
    ::execlp("openssl", "openssl", "s_server", "-quiet", "-www", "-accept", accept.c_str(), "-cert", cert_.c_str(),
             "-key", key.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  for (int i = 0; i < 200 && !accepts_connections(port_); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  if (!accepts_connections(port_)) failure_ = "openssl s_server did not start listening";
}

TlsTestServer::~TlsTestServer() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
}

}  // namespace saguaro::handoff::test
