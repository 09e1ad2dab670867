// `openssl s_server` on loopback with a self-signed certificate made by the openssl command line, for the TLS
// fault tests. Skips cleanly (available() == false) when the openssl binary is missing.
#pragma once

#include <string>
#include <sys/types.h>

namespace saguaro::handoff::test {

class TlsTestServer {
 public:
  explicit TlsTestServer(const std::string& work_dir);
  ~TlsTestServer();
  TlsTestServer(const TlsTestServer&) = delete;
  TlsTestServer& operator=(const TlsTestServer&) = delete;

  bool available() const { return pid_ > 0; }
  int port() const { return port_; }
  const std::string& cert_file() const { return cert_; }  // also usable as a CA file: it is self-signed
  const std::string& failure() const { return failure_; }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::string cert_;
  std::string failure_;
};

}  // namespace saguaro::handoff::test
