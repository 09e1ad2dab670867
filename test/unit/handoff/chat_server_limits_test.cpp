// The chat server's limits under abuse (docs/security.md, "Limits"): a trickling client is cut off at the request
// deadline while others are answered, oversized headers and bodies are refused, a full queue answers 429 with
// Retry-After, a client leaving mid-stream stops its generation, and stop() finishes the answers in flight. The
// clients are raw sockets and cpp-httplib's client, independent of the server code.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include <httplib.h>

#include "saguaro/handoff/chat_server.h"

namespace saguaro::handoff {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

const char* const kBody = R"({"messages":[{"role":"user","content":"hi"}]})";
const char* const kStreamBody = R"({"stream":true,"messages":[{"role":"user","content":"hi"}]})";

// A connected loopback socket to `port`.
int connect_to(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  return fd;
}

// Everything the server sends until it closes the connection (or `limit` passes).
std::string read_until_closed(int fd, std::chrono::milliseconds limit) {
  timeval tv{static_cast<time_t>(limit.count() / 1000), static_cast<suseconds_t>(limit.count() % 1000 * 1000)};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  std::string got;
  char buf[4096];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) got.append(buf, static_cast<size_t>(n));
  return got;
}

// A generator that says "tok" up to max_tokens times, `pause` apart, and counts what it was asked to do.
struct SlowGenerator {
  std::chrono::milliseconds pause{0};
  std::atomic<int> pieces{0};  // pieces generated, over every call
  std::atomic<bool> stopped_early{false};

  GenerationResult operator()(const GenerationRequest& r, const TokenCallback& on_token) {
    long long n = 0;
    std::string text;
    while (n < r.max_tokens) {
      std::this_thread::sleep_for(pause);
      ++n, ++pieces, text += "tok";
      if (!on_token("tok")) {
        stopped_early = true;
        break;
      }
    }
    return {text, 1, n, n == r.max_tokens ? "length" : "stop"};
  }
};

struct Server {
  Server(ChatServerLimits limits, Generator generator) : chat("limits", std::move(generator), limits) {
    port = chat.bind("127.0.0.1", 0);
    chat.serve_in_background();
  }
  ~Server() { chat.stop(); }
  ChatServer chat;
  int port = 0;
};

TEST(ChatServerLimits, TricklingClientIsCutOffWhileOthersAreAnswered) {
  ChatServerLimits limits;
  limits.request_timeout_ms = 1000;
  SlowGenerator generator;
  Server server(limits, std::ref(generator));
  // A whole request, one byte every 100 ms: 10 bytes arrive before the deadline, far fewer than the request has.
  const std::string request = "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: " +
                              std::to_string(std::string(kBody).size()) + "\r\n\r\n" + kBody;
  const int slow = connect_to(server.port);
  std::atomic<bool> cut_off{false};
  const auto start = Clock::now();
  std::thread trickler([&] {
    for (char c : request) {
      if (::send(slow, &c, 1, MSG_NOSIGNAL) != 1) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (cut_off) break;
    }
  });
  // Meanwhile other clients are answered at once.
  httplib::Client client("127.0.0.1", server.port);
  for (int i = 0; i < 5; ++i) {
    auto res = client.Post("/v1/chat/completions", kBody, "application/json");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200);
  }
  EXPECT_LT(Clock::now() - start, std::chrono::milliseconds(900)) << "the other clients waited for the trickler";
  const std::string got = read_until_closed(slow, std::chrono::milliseconds(5000));
  cut_off = true;
  const auto elapsed = Clock::now() - start;
  trickler.join();
  ::close(slow);
  EXPECT_GE(elapsed, std::chrono::milliseconds(900));
  EXPECT_LT(elapsed, std::chrono::milliseconds(3000)) << "the trickling connection stayed open";
  EXPECT_EQ(generator.pieces, 5 * 256);  // the trickler's request never reached the generator
  // Cut off inside the request line there is nothing to answer to; inside the headers the answer is 408.
  if (!got.empty()) {
    EXPECT_EQ(got.rfind("HTTP/1.1 408", 0), 0u) << got;
  }
}

TEST(ChatServerLimits, SlowHeadersGet408) {
  ChatServerLimits limits;
  limits.request_timeout_ms = 500;
  SlowGenerator generator;
  Server server(limits, std::ref(generator));
  const int fd = connect_to(server.port);
  const std::string head = "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n";
  ASSERT_EQ(::send(fd, head.data(), head.size(), MSG_NOSIGNAL), static_cast<ssize_t>(head.size()));
  const std::string got = read_until_closed(fd, std::chrono::milliseconds(3000));
  ::close(fd);
  ASSERT_EQ(got.rfind("HTTP/1.1 408", 0), 0u) << got;
  const json error = json::parse(got.substr(got.find("\r\n\r\n") + 4))["error"];
  EXPECT_NE(error["message"].get<std::string>().find("within 500 ms"), std::string::npos) << error;
}

TEST(ChatServerLimits, OversizedHeadersAndBodiesAreRefused) {
  ChatServerLimits limits;
  limits.max_header_bytes = 4096;
  limits.max_body_bytes = 1000;
  SlowGenerator generator;
  Server server(limits, std::ref(generator));
  httplib::Client client("127.0.0.1", server.port);
  httplib::Headers many;
  for (int i = 0; i < 100; ++i) many.emplace("X-Filler-" + std::to_string(i), std::string(60, 'a'));
  auto res = client.Post("/v1/chat/completions", many, kBody, "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 431);
  EXPECT_NE(json::parse(res->body)["error"]["message"].get<std::string>().find("4096 bytes"), std::string::npos);
  const std::string big = R"({"messages":[{"role":"user","content":")" + std::string(2000, 'x') + R"("}]})";
  res = client.Post("/v1/chat/completions", big, "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 413);
  EXPECT_NE(json::parse(res->body)["error"]["message"].get<std::string>().find("1000 bytes"), std::string::npos);
  EXPECT_EQ(generator.pieces, 0);
  res = client.Post("/v1/chat/completions", kBody, "application/json");  // the server still answers
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
}

// A server (queue of 1) whose generator holds every request until release(): one generates, one may wait.
class ChatServerQueue : public ::testing::Test {
 protected:
  void SetUp() override {
    ChatServerLimits limits;
    limits.max_waiting = 1;
    server_ = std::make_unique<Server>(limits, [this](const GenerationRequest&, const TokenCallback& on_token) {
      ++started_;
      std::unique_lock<std::mutex> lock(m_);
      cv_.wait(lock, [&] { return released_; });
      on_token("done");
      return GenerationResult{"done", 1, 1, "stop", nullptr};
    });
  }
  void TearDown() override { release(); }
  void release() {
    {
      std::lock_guard<std::mutex> lock(m_);
      released_ = true;
    }
    cv_.notify_all();
  }
  // The status of a completion (-1: no answer).
  int post(const std::string& body) const {
    httplib::Client client("127.0.0.1", server_->port);
    auto res = client.Post("/v1/chat/completions", body, "application/json");
    return res ? res->status : -1;
  }
  // A streaming request generating (the generator holds it).
  std::future<int> first_generating() {
    auto first = std::async(std::launch::async, [this] { return post(kStreamBody); });
    while (started_ == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return first;
  }

  std::mutex m_;
  std::condition_variable cv_;
  bool released_ = false;
  std::atomic<int> started_{0};
  std::unique_ptr<Server> server_;
};

// A raw connection that sent the streaming request `body` and has read up to its first event (the role chunk).
int stream_begun(int port, const std::string& body) {
  const int fd = connect_to(port);
  const std::string request = "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                              "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  EXPECT_EQ(::send(fd, request.data(), request.size(), MSG_NOSIGNAL), static_cast<ssize_t>(request.size()));
  std::string got;
  for (char buf[1024]; got.find("data: ") == std::string::npos;) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  EXPECT_NE(got.find("data: "), std::string::npos) << got;
  return fd;
}

TEST_F(ChatServerQueue, FullQueueGets429WithRetryAfter) {
  auto first = first_generating();
  auto second = std::async(std::launch::async, [this] { return post(kBody); });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the second is waiting for the generator
  httplib::Client client("127.0.0.1", server_->port);
  auto busy = client.Post("/v1/chat/completions", kBody, "application/json");
  ASSERT_TRUE(busy);
  EXPECT_EQ(busy->status, 429);
  EXPECT_GE(std::stoi(busy->get_header_value("Retry-After")), 1);
  EXPECT_EQ(json::parse(busy->body)["error"]["code"], "server_busy");
  release();
  EXPECT_EQ(first.get(), 200);
  EXPECT_EQ(second.get(), 200);
  EXPECT_EQ(post(kBody), 200);  // the places are given back
  EXPECT_EQ(started_, 3);
}

// A streaming client that leaves while waiting for the generator gives its place back and is never generated for.
TEST_F(ChatServerQueue, ClientLeavingWhileWaitingGivesItsPlaceBack) {
  auto first = first_generating();
  ::close(stream_begun(server_->port, kStreamBody));  // waiting for the generator when it leaves
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto third = std::async(std::launch::async, [this] { return post(kBody); });  // admitted: the place is free
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  release();
  EXPECT_EQ(first.get(), 200);
  EXPECT_EQ(third.get(), 200);
  EXPECT_EQ(started_, 2);
}

TEST(ChatServerLimits, ClientLeavingMidStreamStopsTheGeneration) {
  SlowGenerator generator;
  generator.pause = std::chrono::milliseconds(5);
  Server server({}, std::ref(generator));
  ::close(stream_begun(server.port, R"({"stream":true,"max_tokens":2000,"messages":[{"role":"user","content":"hi"}]})"));
  const auto left = Clock::now();
  while (!generator.stopped_early && Clock::now() - left < std::chrono::seconds(5))
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_TRUE(generator.stopped_early);
  EXPECT_LT(generator.pieces, 100) << "generated on for a client that had left";
  httplib::Client client("127.0.0.1", server.port);  // and the generator is free for the next client
  auto res = client.Post("/v1/chat/completions", R"({"max_tokens":3,"messages":[{"role":"user","content":"hi"}]})",
                         "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(json::parse(res->body)["choices"][0]["message"]["content"], "toktoktok");
}

TEST(ChatServerLimits, StopFinishesTheAnswersInFlight) {
  SlowGenerator generator;
  generator.pause = std::chrono::milliseconds(20);
  auto server = std::make_unique<Server>(ChatServerLimits{}, std::ref(generator));
  auto post = [port = server->port](const std::string& body) {
    httplib::Client client("127.0.0.1", port);
    auto res = client.Post("/v1/chat/completions", body, "application/json");
    return res ? res->body : std::string("no answer");
  };
  const std::string body = R"({"max_tokens":20,"messages":[{"role":"user","content":"hi"}]})";
  auto first = std::async(std::launch::async, post, body);
  while (generator.pieces == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  auto second = std::async(std::launch::async, post, R"({"stream":true,)" + body.substr(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the second waits for the generator
  const auto stopping = Clock::now();
  server->chat.stop();  // returns once both are answered: 2 x 20 pieces x 20 ms
  EXPECT_GE(Clock::now() - stopping, std::chrono::milliseconds(300));
  const json answer = json::parse(first.get());
  EXPECT_EQ(answer["choices"][0]["message"]["content"].get<std::string>().size(), 60u) << answer;
  EXPECT_NE(second.get().find("data: [DONE]"), std::string::npos);
  EXPECT_EQ(generator.pieces, 40);
  httplib::Client late("127.0.0.1", server->port);  // no new connections
  EXPECT_FALSE(late.Post("/v1/chat/completions", body, "application/json"));
}

}  // namespace
}  // namespace saguaro::handoff
