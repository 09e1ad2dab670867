// C API over the fake model: response fields, options, stop strings, streaming callback, errors.
#include "saguaro/saguaro.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace {

using nlohmann::json;

class CApi : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = saguaro::test::make_temp_dir();
    ASSERT_FALSE(saguaro::test::write_fake_bundle(dir_).empty());
    model_ = saguaro_init(dir_.c_str());
    ASSERT_NE(model_, nullptr) << saguaro_last_error();
  }
  void TearDown() override { saguaro_destroy(model_); }
  json complete(const char* msgs, const char* opts, int* rc = nullptr) {
    char buf[4096];
    const int n = saguaro_complete(model_, msgs, opts, buf, sizeof buf, nullptr, nullptr);
    if (rc) *rc = n;
    return json::parse(buf);
  }
  std::string dir_;
  saguaro_model_t model_ = nullptr;
};

const char* kMsgs = R"([{"role":"system","content":"ignored"},{"role":"user","content":"a"}])";

TEST_F(CApi, ResponseHasAllFields) {
  int rc = 0;
  const json r = complete(kMsgs, R"({"temperature":0,"max_tokens":10})", &rc);
  EXPECT_GT(rc, 0);
  EXPECT_EQ(r["success"], true);
  EXPECT_TRUE(r["error"].is_null());
  EXPECT_EQ(r["response"], "baba");
  EXPECT_EQ(r["cloud_handoff"], false);
  // No probe in the fake model: the confidence is exp(−mean entropy) of the sampled distributions, strictly
  // between 0 and 1 for these spread-out bigram rows.
  EXPECT_EQ(r["confidence_source"], "entropy");
  ASSERT_TRUE(r["confidence"].is_number());
  EXPECT_GT(r["confidence"].get<double>(), 0.0);
  EXPECT_LT(r["confidence"].get<double>(), 1.0);
  EXPECT_TRUE(r["probe_ms"].is_null());
  for (const char* k : {"time_to_first_token_ms", "total_time_ms", "prefill_tps", "decode_tps", "ram_usage_mb"})
    EXPECT_TRUE(r[k].is_number()) << k;
  EXPECT_EQ(r["prefill_tokens"], 2);
  EXPECT_EQ(r["decode_tokens"], 3);
  EXPECT_GT(r["ram_usage_mb"].get<double>(), 0.0);
}

TEST_F(CApi, MaxTokensAndStop) {
  EXPECT_EQ(complete(kMsgs, R"({"temperature":0,"max_tokens":2})")["response"], "bab");
  EXPECT_EQ(complete(kMsgs, R"({"temperature":0,"stop":["ab"]})")["response"], "b");
  EXPECT_EQ(complete(kMsgs, R"({"temperature":0,"stop":"a"})")["response"], "b");
}

TEST_F(CApi, StreamsTokensToCallback) {
  std::string streamed;
  char buf[4096];
  auto cb = [](const char* tok, uint32_t, void* user) { *static_cast<std::string*>(user) += tok; };
  ASSERT_GT(saguaro_complete(model_, kMsgs, R"({"temperature":0})", buf, sizeof buf, cb, &streamed), 0);
  EXPECT_EQ(streamed, json::parse(buf)["response"]);
}

// saguaro_stop during a completion (here from its own callback, as a signal handler or another thread would) ends
// the generation after the current token; the completion answers with the text so far. A stop asked for between
// completions does not cut the next one.
TEST_F(CApi, StopEndsTheRunningCompletion) {
  struct Seen {
    saguaro_model_t model;
    std::string text;
  } seen{model_, ""};
  auto stop_at_first = [](const char* tok, uint32_t, void* user) {
    auto* s = static_cast<Seen*>(user);
    s->text += tok;
    saguaro_stop(s->model);
  };
  char buf[4096];
  ASSERT_GT(saguaro_complete(model_, kMsgs, R"({"temperature":0})", buf, sizeof buf, stop_at_first, &seen), 0);
  const json stopped = json::parse(buf);
  EXPECT_EQ(seen.text, "b");
  EXPECT_EQ(stopped["response"], "b");
  EXPECT_EQ(stopped["decode_tokens"], 1);
  EXPECT_EQ(stopped["stopped"], true);
  saguaro_stop(model_);
  saguaro_stop(nullptr);
  const json whole = complete(kMsgs, R"({"temperature":0})");
  EXPECT_EQ(whole["response"], "baba");
  EXPECT_FALSE(whole.contains("stopped"));
}

TEST_F(CApi, SeededSamplingIsReproducible) {
  const char* opts = R"({"temperature":1.5,"top_p":1.0,"seed":7,"max_tokens":20})";
  EXPECT_EQ(complete(kMsgs, opts)["response"], complete(kMsgs, opts)["response"]);
}

TEST_F(CApi, BufferTooSmallIsAnError) {
  char buf[16];
  std::memset(buf, 'x', sizeof buf);
  EXPECT_EQ(saguaro_complete(model_, kMsgs, R"({"temperature":0})", buf, 8, nullptr, nullptr), -1);
  EXPECT_NE(std::string(saguaro_last_error()).find("too small"), std::string::npos);
  EXPECT_EQ(buf[8], 'x');  // nothing written past out_size
}

TEST_F(CApi, BadInputIsReported) {
  int rc = 0;
  json r = complete("not json", nullptr, &rc);
  EXPECT_EQ(rc, -1);
  EXPECT_EQ(r["success"], false);
  EXPECT_NE(r["error"].get<std::string>().find("messages_json"), std::string::npos);
  r = complete(kMsgs, R"({"temperature":"hot"})", &rc);
  EXPECT_EQ(rc, -1);
  EXPECT_NE(r["error"].get<std::string>().find("temperature"), std::string::npos);
  r = complete(kMsgs, R"({"top_p":2})", &rc);
  EXPECT_EQ(rc, -1);
  r = complete(kMsgs, R"({"bogus":1})", &rc);
  EXPECT_NE(r["error"].get<std::string>().find("bogus"), std::string::npos);
  char buf[256];
  EXPECT_EQ(saguaro_complete(nullptr, kMsgs, nullptr, buf, sizeof buf, nullptr, nullptr), -1);
  EXPECT_EQ(saguaro_complete(model_, nullptr, nullptr, buf, sizeof buf, nullptr, nullptr), -1);
}

// Images: a data: URI whose payload is not base64 is the request's error; an image for a model without a vision
// tower (the fake model has none) is refused by name.
TEST_F(CApi, ImagesAreCheckedAndNeedAVisionTower) {
  int rc = 0;
  json r = complete(R"([{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,**"}}]}])",
                    nullptr, &rc);
  EXPECT_EQ(rc, -1);
  EXPECT_EQ(r["error"], "messages_json: messages[0].content[0]: the data: URI's payload is not base64");
  r = complete(R"([{"role":"user","content":"What is it?","images":["cat.png"]}])", nullptr, &rc);
  EXPECT_EQ(rc, -1);
  EXPECT_EQ(r["error"], "messages_json: the model has no vision tower to take cat.png");
}

// 10,000 calls in one process, cycling through an answer, a streamed answer, an answer cut by a stop string and
// two refusals: every answer is the same each time, and under LeakSanitizer (./dev test --sanitize) nothing they
// allocated is left unreachable.
TEST_F(CApi, TenThousandCompletesLeakNothing) {
  const std::string answer = complete(kMsgs, R"({"temperature":0,"max_tokens":4})")["response"];
  std::string streamed;
  auto cb = [](const char* tok, uint32_t, void* user) { *static_cast<std::string*>(user) += tok; };
  char buf[4096];
  for (int i = 0; i < 10000; ++i) {
    switch (i % 5) {
      case 0:
        ASSERT_GT(saguaro_complete(model_, kMsgs, R"({"temperature":0,"max_tokens":4})", buf, sizeof buf, nullptr,
                                   nullptr), 0);
        ASSERT_EQ(json::parse(buf)["response"], answer) << "call " << i;
        break;
      case 1:
        streamed.clear();
        ASSERT_GT(saguaro_complete(model_, kMsgs, R"({"temperature":0,"max_tokens":4})", buf, sizeof buf, cb,
                                   &streamed), 0);
        ASSERT_EQ(streamed, answer) << "call " << i;
        break;
      case 2:
        ASSERT_GT(saguaro_complete(model_, kMsgs, R"({"temperature":0,"stop":["ab"]})", buf, sizeof buf, nullptr,
                                   nullptr), 0);
        ASSERT_EQ(json::parse(buf)["response"], "b") << "call " << i;
        break;
      case 3:
        ASSERT_EQ(saguaro_complete(model_, "not json", nullptr, buf, sizeof buf, nullptr, nullptr), -1);
        break;
      case 4:
        ASSERT_EQ(saguaro_complete(model_, kMsgs, R"({"temperature":"hot"})", buf, sizeof buf, nullptr, nullptr), -1);
        break;
    }
  }
#if defined(__SANITIZE_ADDRESS__)
  EXPECT_EQ(__lsan_do_recoverable_leak_check(), 0) << "LeakSanitizer's report is above";
#endif
}

TEST(CApiInit, BadBundle) {
  EXPECT_EQ(saguaro_init("/nonexistent/bundle"), nullptr);
  EXPECT_NE(std::string(saguaro_last_error()).find("/nonexistent/bundle: cannot open"), std::string::npos)
      << saguaro_last_error();
  EXPECT_EQ(saguaro_init(nullptr), nullptr);
  saguaro_destroy(nullptr);
}

// A blob in memory (as a firmware build links it in) answers as the same blob opened from its file; memory that is
// not 64-byte aligned, or none, is refused with the name in the message.
TEST(CApiInit, FromMemory) {
  const std::string dir = saguaro::test::make_temp_dir();
  ASSERT_FALSE(saguaro::test::write_fake_bundle(dir).empty());
  const std::string bytes = saguaro::test::read_file(dir + "/weights.sgw");
  void* mem = std::aligned_alloc(64, (bytes.size() + 64 + 63) / 64 * 64);
  std::memcpy(mem, bytes.data(), bytes.size());
  char from_file[4096], from_memory[4096];
  saguaro_model_t file_model = saguaro_init(dir.c_str());
  saguaro_model_t memory_model = saguaro_init_memory(mem, bytes.size(), "linked-in");
  ASSERT_NE(memory_model, nullptr) << saguaro_last_error();
  const char* opts = R"({"temperature":1.5,"top_p":1.0,"seed":7,"max_tokens":20})";
  ASSERT_GT(saguaro_complete(file_model, kMsgs, opts, from_file, sizeof from_file, nullptr, nullptr), 0);
  ASSERT_GT(saguaro_complete(memory_model, kMsgs, opts, from_memory, sizeof from_memory, nullptr, nullptr), 0);
  EXPECT_EQ(json::parse(from_memory)["response"], json::parse(from_file)["response"]);
  saguaro_destroy(memory_model);
  saguaro_destroy(file_model);

  std::memmove(static_cast<char*>(mem) + 8, mem, bytes.size());
  EXPECT_EQ(saguaro_init_memory(static_cast<char*>(mem) + 8, bytes.size(), "linked-in"), nullptr);
  EXPECT_EQ(std::string(saguaro_last_error()), "linked-in: buffer is not 64-byte aligned");
  EXPECT_EQ(saguaro_init_memory(nullptr, 0, "linked-in"), nullptr);
  EXPECT_NE(std::string(saguaro_last_error()).find("data is NULL"), std::string::npos) << saguaro_last_error();
  std::free(mem);
}

}  // namespace
