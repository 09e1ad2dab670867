// Acceptance 2 of issue 7: against a misbehaving cloud, hybrid_complete returns the local answer with
// cloud_handoff false and error set, within cloud_timeout_ms + 1 s; the fake key never appears anywhere.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <mutex>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include "fake_cloud_server.h"
#include "saguaro/handoff/hybrid_complete.h"
#include "saguaro/handoff/log.h"
#include "test_support.h"
#include "tls_test_server.h"

namespace saguaro::handoff::test {
namespace {

using nlohmann::json;

constexpr long long kTimeoutMs = 2000;
constexpr long long kSlackMs = 1000;  // the acceptance bound: cloud_timeout_ms + 1 s

class CloudFaults : public ::testing::Test {
 protected:
  void SetUp() override {
    set_log_sink([this](const std::string& line) {
      std::lock_guard<std::mutex> lock(log_mutex_);
      log_.push_back(line);
    });
  }
  void TearDown() override {
    set_log_sink(stderr_log_sink());
  }

  // Runs one hybrid completion against base_url and checks everything every fault case must satisfy.
  json expect_local_fallback(const std::string& case_name, const std::string& base_url, json extra = json::object()) {
    json options = {{"cloud_provider", "openai"}, {"cloud_base_url", base_url}, {"cloud_model", "fake-model"},
                    {"cloud_timeout_ms", kTimeoutMs}, {"confidence_threshold", 0.5},
                    {"spend_ledger_path", dir_.file("ledger.json")}};
    options.update(extra);
    HybridHooks hooks;
    hooks.env = test::fake_env({{"SAGUARO_CLOUD_API_KEY", kFakeKey}, {"HOME", dir_.path()}});
    std::string streamed;
    hooks.on_text = [&](const std::string& text) { streamed += text; };
    const auto start = std::chrono::steady_clock::now();
    json result = hybrid_complete_json(json::parse(R"([{"role":"user","content":"2+2?"}])"), options,
                                       [] { return LocalAnswer{"local answer", 0.1}; }, hooks);
    const long long elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(result["response"], "local answer") << result.dump();
    EXPECT_EQ(streamed, "local answer");
    EXPECT_EQ(result["cloud_handoff"], false);
    EXPECT_TRUE(result["error"].is_string()) << result.dump();
    EXPECT_FALSE(result["error"].get<std::string>().empty());
    EXPECT_EQ(result["error"].get<std::string>().find('\n'), std::string::npos);
    const long long budget = options["cloud_timeout_ms"].get<long long>();
    EXPECT_LE(elapsed, budget + kSlackMs) << case_name;
    EXPECT_EQ(result.dump().find(kFakeKey), std::string::npos) << result.dump();
    for (const std::string& line : log_) EXPECT_EQ(line.find(kFakeKey), std::string::npos) << line;
    // The measured figures for the report: ctest -V shows them.
    std::printf("[fault] %-28s elapsed %5lld ms (bound %lld ms) error: %s\n", case_name.c_str(),
                elapsed, budget + kSlackMs, result["error"].get<std::string>().c_str());
    RecordProperty("elapsed_ms", std::to_string(elapsed));
    return result;
  }

  TempDir dir_;
  std::mutex log_mutex_;
  std::vector<std::string> log_;
};

TEST_F(CloudFaults, TotalTimeoutWhenServerNeverAnswers) {
  FakeCloudServer server(FakeBehavior::NeverAnswer);
  json r = expect_local_fallback("never answers", server.base_url());
  EXPECT_NE(r["error"].get<std::string>().find("time budget"), std::string::npos);
  EXPECT_GE(r["timings"]["cloud_ms"].get<long long>(), kTimeoutMs - 200);  // it did wait, it did not give up early
}

TEST_F(CloudFaults, ServerErrorEveryTime) {
  FakeCloudServer server(FakeBehavior::Always500);
  json r = expect_local_fallback("500 every time", server.base_url());
  EXPECT_EQ(server.requests_seen(), 3);  // bounded retries
  EXPECT_NE(r["error"].get<std::string>().find("HTTP 500"), std::string::npos);
}

TEST_F(CloudFaults, TooManyRequestsThenSuccessSucceedsOnRetry) {
  FakeCloudServer server(FakeBehavior::TooManyThenOk);
  json options = {{"cloud_provider", "openai"}, {"cloud_base_url", server.base_url()}, {"cloud_model", "fake-model"},
                  {"cloud_timeout_ms", kTimeoutMs}, {"spend_ledger_path", dir_.file("ledger.json")}};
  HybridHooks hooks;
  hooks.env = test::fake_env({{"SAGUARO_CLOUD_API_KEY", kFakeKey}});
  const auto start = std::chrono::steady_clock::now();
  json r = hybrid_complete_json(json::parse(R"([{"role":"user","content":"2+2?"}])"), options,
                                [] { return LocalAnswer{"local answer", 0.1}; }, hooks);
  const long long elapsed =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r["cloud_handoff"], true) << r.dump();
  EXPECT_EQ(r["response"], "cloud answer");
  EXPECT_TRUE(r["error"].is_null());
  EXPECT_EQ(server.requests_seen(), 2);
  EXPECT_GE(elapsed, 1000);  // Retry-After: 1 was honoured
  EXPECT_LE(elapsed, kTimeoutMs + kSlackMs);
  std::printf("[fault] %-28s elapsed %5lld ms (bound %lld ms) succeeded on attempt 2\n", "429 then success", elapsed,
              kTimeoutMs + kSlackMs);
}

TEST_F(CloudFaults, RetryAfterBeyondTheBudgetFailsAtOnce) {
  FakeCloudServer server(FakeBehavior::TooManyLongRetryAfter);
  json r = expect_local_fallback("429 Retry-After 3600", server.base_url());
  EXPECT_EQ(server.requests_seen(), 1);
  EXPECT_LT(r["timings"]["cloud_ms"].get<long long>(), 1000);
  EXPECT_NE(r["error"].get<std::string>().find("Retry-After"), std::string::npos);
}

// The retry after a slow 503 gets only what is left of the budget, not a fresh one: the whole call ends at the
// budget (a fresh budget would end near 800 ms + backoff + 2000 ms).
TEST_F(CloudFaults, RetryGetsOnlyTheRemainingBudget) {
  FakeCloudServer server(FakeBehavior::SlowErrorThenSilence);
  json r = expect_local_fallback("slow 503 then silence", server.base_url());
  EXPECT_EQ(server.requests_seen(), 2);
  EXPECT_LE(r["timings"]["cloud_ms"].get<long long>(), kTimeoutMs + 400);
  EXPECT_NE(r["error"].get<std::string>().find("time budget"), std::string::npos);
}

TEST_F(CloudFaults, MalformedJsonBody) {
  FakeCloudServer server(FakeBehavior::MalformedJson);
  json r = expect_local_fallback("malformed JSON", server.base_url());
  EXPECT_NE(r["error"].get<std::string>().find("malformed JSON"), std::string::npos);
}

TEST_F(CloudFaults, ResponseDripsOneBytePerSecond) {
  FakeCloudServer server(FakeBehavior::Drip);
  json r = expect_local_fallback("drip 1 byte/s", server.base_url());
  EXPECT_NE(r["error"].get<std::string>().find("time budget"), std::string::npos);
}

TEST_F(CloudFaults, ConnectionClosedMidBody) {
  FakeCloudServer server(FakeBehavior::CloseMidBody);
  json r = expect_local_fallback("closed mid-body", server.base_url());
  EXPECT_NE(r["error"].get<std::string>().find("closed before the whole response"), std::string::npos);
}

TEST_F(CloudFaults, RefusedPort) {
  const int port = test::unused_loopback_port();
  json r = expect_local_fallback("refused port", "http://127.0.0.1:" + std::to_string(port) + "/v1");
  EXPECT_NE(r["error"].get<std::string>().find("could not connect"), std::string::npos);
}

TEST_F(CloudFaults, TlsSelfSignedCertificateIsRejected) {
  test::TlsTestServer tls(dir_.path());
  if (!tls.available()) GTEST_SKIP() << tls.failure();
  ASSERT_EQ(tls.failure(), "");
  json r = expect_local_fallback("TLS self-signed", "https://127.0.0.1:" + std::to_string(tls.port()) + "/v1");
  EXPECT_NE(r["error"].get<std::string>().find("TLS certificate verification failed"), std::string::npos);
}

TEST_F(CloudFaults, TlsToAPlainHttpPort) {
  FakeCloudServer server(FakeBehavior::Ok);
  json r = expect_local_fallback("TLS to plain-HTTP port", "https://127.0.0.1:" + std::to_string(server.port()) + "/v1");
  EXPECT_NE(r["error"].get<std::string>().find("TLS handshake failed"), std::string::npos);
}

// The same self-signed server is accepted once its certificate is named as cloud_ca_file: the rejection above was
// the certificate check, not a broken TLS setup. (s_server -www answers with a status page, not JSON.)
TEST_F(CloudFaults, TlsCaFileMakesTheSameServerTrusted) {
  test::TlsTestServer tls(dir_.path());
  if (!tls.available()) GTEST_SKIP() << tls.failure();
  json r = expect_local_fallback("TLS with cloud_ca_file", "https://127.0.0.1:" + std::to_string(tls.port()) + "/v1",
                                 {{"cloud_ca_file", tls.cert_file()}, {"cloud_timeout_ms", 1000}});
  EXPECT_EQ(r["error"].get<std::string>().find("TLS"), std::string::npos) << r["error"];
}

// A hung process holding the spend ledger's lock costs a bounded wait, not a hang, and no handoff (fail closed).
TEST_F(CloudFaults, SpendLedgerLockedByAHungProcess) {
  FakeCloudServer server(FakeBehavior::Ok);
  const int fd = ::open((dir_.file("ledger.json") + ".lock").c_str(), O_RDWR | O_CREAT, 0600);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);
  json r = expect_local_fallback("ledger lock held", server.base_url());
  ::close(fd);
  EXPECT_EQ(server.requests_seen(), 0);
  EXPECT_EQ(r["handoff_reason"], "ledger_error");
  EXPECT_NE(r["error"].get<std::string>().find("stayed locked"), std::string::npos);
}

TEST_F(CloudFaults, KeyEchoedInA401NeverSurfaces) {
  FakeCloudServer server(FakeBehavior::EchoAuth401);
  set_log_sink(nullptr);
  set_log_sink(stderr_log_sink());
  ::testing::internal::CaptureStderr();
  ::testing::internal::CaptureStdout();
  json r = expect_local_fallback("401 echoing the key", server.base_url());
  const std::string err = ::testing::internal::GetCapturedStderr();
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_NE(err.find("HTTP 401"), std::string::npos) << err;  // the failure was logged ...
  EXPECT_EQ(err.find(kFakeKey), std::string::npos) << err;    // ... without the key
  EXPECT_EQ(out.find(kFakeKey), std::string::npos);
  // The server really did receive (and echo) the key: the redaction is what kept it out.
  ASSERT_EQ(server.raw_requests().size(), 1u);
  EXPECT_NE(server.raw_requests()[0].find(std::string("Authorization: Bearer ") + kFakeKey), std::string::npos);
  EXPECT_NE(r["error"].get<std::string>().find("HTTP 401"), std::string::npos);
}

TEST_F(CloudFaults, KeyEchoedBackForEveryProvider) {
  for (const char* provider : {"anthropic", "gemini"}) {
    FakeCloudServer server(FakeBehavior::EchoAuth401);
    json r = expect_local_fallback(std::string("401 echo, ") + provider,
                                   "http://127.0.0.1:" + std::to_string(server.port()),
                                   {{"cloud_provider", provider}});
    ASSERT_EQ(server.raw_requests().size(), 1u);
    EXPECT_NE(server.raw_requests()[0].find(kFakeKey), std::string::npos);
  }
}

}  // namespace
}  // namespace saguaro::handoff::test
