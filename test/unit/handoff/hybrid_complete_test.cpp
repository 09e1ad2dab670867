// The orchestrator on its good paths: a real handoff on the wire for each provider, dry run, privacy, the cap
// across restarts, and bad input.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include "fake_cloud_server.h"
#include "saguaro/handoff/chat_server.h"
#include "saguaro/handoff/hybrid_complete.h"
#include "saguaro/handoff/log.h"
#include "saguaro/handoff/spend_ledger.h"
#include "test_support.h"

namespace saguaro::handoff::test {
namespace {

using nlohmann::json;

const json kQuestion = json::parse(R"([{"role":"system","content":"Be brief."},{"role":"user","content":"2+2?"}])");

class Hybrid : public ::testing::Test {
 protected:
  void SetUp() override { set_log_sink(nullptr); }
  void TearDown() override {
    set_log_sink(stderr_log_sink());
  }

  json run(json options, double confidence = 0.1, const json& messages = kQuestion) {
    if (!options.contains("spend_ledger_path")) options["spend_ledger_path"] = dir_.file("ledger.json");
    HybridHooks hooks;
    hooks.env = test::fake_env({{"SAGUARO_CLOUD_API_KEY", kFakeKey}, {"HOME", dir_.path()}});
    return hybrid_complete_json(messages, options, [&] { return LocalAnswer{"local answer", confidence}; }, hooks);
  }

  json openai_options(const FakeCloudServer& server) {
    return {{"cloud_provider", "openai"}, {"cloud_base_url", server.base_url()}, {"cloud_model", "fake-model"},
            {"cloud_timeout_ms", 3000}};
  }

  TempDir dir_;
};

std::string request_body(const std::string& raw) { return raw.substr(raw.find("\r\n\r\n") + 4); }

TEST_F(Hybrid, LowConfidenceGoesToTheCloud) {
  FakeCloudServer server(FakeBehavior::Ok);
  json r = run(openai_options(server));
  EXPECT_EQ(r["response"], "cloud answer");
  EXPECT_EQ(r["cloud_handoff"], true);
  EXPECT_TRUE(r["error"].is_null()) << r.dump();
  EXPECT_EQ(r["local_response"], "local answer");
  EXPECT_EQ(r["provider"], "openai");
  EXPECT_EQ(r["model"], "fake-model");
  EXPECT_EQ(r["cloud_tokens"]["total"], 15);
  EXPECT_EQ(r["handoff_reason"], "below_threshold");
  for (const char* k : {"local_ms", "cloud_ms", "total_ms"}) EXPECT_TRUE(r["timings"][k].is_number_integer());
  ASSERT_EQ(server.raw_requests().size(), 1u);
  const std::string raw = server.raw_requests()[0];
  EXPECT_EQ(raw.rfind("POST /v1/chat/completions HTTP/1.1\r\n", 0), 0u) << raw;
  EXPECT_EQ(json::parse(request_body(raw))["messages"][1]["content"], "2+2?");
  // The ledger was settled with the reported usage, not the reservation.
  EXPECT_EQ(SpendLedger(dir_.file("ledger.json")).usage(test::now_ms()).hour.tokens, 15);
}

TEST_F(Hybrid, AnthropicAndGeminiOnTheWire) {
  struct Case {
    const char* provider;
    const char* reply_fixture;
    const char* request_line;
    const char* key_header;
    const char* text;
  };
  for (const Case& c : {Case{"anthropic", "anthropic_reply_success.json", "POST /v1/messages HTTP/1.1",
                             "x-api-key: ", "Six."},
                        Case{"gemini", "gemini_reply_success.json",
                             "POST /v1beta/models/fake-model:generateContent HTTP/1.1", "x-goog-api-key: ", "6"}}) {
    FakeCloudServer server(FakeBehavior::Ok, test::read_fixture(c.reply_fixture)["body"].dump());
    json options = {{"cloud_provider", c.provider}, {"cloud_base_url", "http://127.0.0.1:" + std::to_string(server.port())},
                    {"cloud_model", "fake-model"}};
    json r = run(options);
    EXPECT_EQ(r["response"], c.text) << r.dump();
    EXPECT_EQ(r["cloud_handoff"], true);
    ASSERT_EQ(server.raw_requests().size(), 1u);
    const std::string raw = server.raw_requests()[0];
    EXPECT_EQ(raw.rfind(c.request_line, 0), 0u) << raw;
    EXPECT_NE(raw.find(std::string(c.key_header) + kFakeKey), std::string::npos);
    if (std::string(c.provider) == "anthropic") {
      EXPECT_NE(raw.find("anthropic-version: 2023-06-01"), std::string::npos);
      EXPECT_EQ(json::parse(request_body(raw))["system"], "Be brief.");
    }
  }
}

TEST_F(Hybrid, ConfidentAnswerStaysLocal) {
  FakeCloudServer server(FakeBehavior::Ok);
  json r = run(openai_options(server), 0.9);
  EXPECT_EQ(r["response"], "local answer");
  EXPECT_EQ(r["cloud_handoff"], false);
  EXPECT_TRUE(r["error"].is_null());
  EXPECT_EQ(r["handoff_reason"], "confident");
  EXPECT_EQ(server.requests_seen(), 0);
}

TEST_F(Hybrid, OurOwnServerAsTheCloudNeedsNoKey) {
  ChatServer cloud("bigger-model", [](const GenerationRequest& req, const TokenCallback&) {
    return GenerationResult{"served: " + req.messages.back().content, 7, 2, "stop"};
  });
  const int port = cloud.bind("127.0.0.1", 0);
  cloud.serve_in_background();
  json options = {{"cloud_provider", "openai"}, {"cloud_base_url", "http://127.0.0.1:" + std::to_string(port) + "/v1"},
                  {"cloud_model", "bigger-model"}, {"spend_ledger_path", dir_.file("ledger.json")}};
  HybridHooks hooks;
  hooks.env = test::fake_env({{"HOME", dir_.path()}});  // no key anywhere
  json r = hybrid_complete_json(kQuestion, options, [] { return LocalAnswer{"local answer", 0.0}; }, hooks);
  EXPECT_EQ(r["response"], "served: 2+2?") << r.dump();
  EXPECT_EQ(r["cloud_tokens"]["prompt"], 7);
  EXPECT_EQ(r["cloud_tokens"]["completion"], 2);
  cloud.stop();
}

TEST_F(Hybrid, DryRunRecordsWithoutSendingOrLeakingTheKey) {
  FakeCloudServer server(FakeBehavior::Ok);
  json options = openai_options(server);
  options["dry_run"] = true;
  options["dry_run_path"] = dir_.file("dry.jsonl");
  json r = run(options);
  EXPECT_EQ(server.requests_seen(), 0);
  EXPECT_EQ(r["response"], "local answer");
  EXPECT_EQ(r["cloud_handoff"], false);
  EXPECT_EQ(r["handoff_reason"], "dry_run");
  EXPECT_EQ(r["dry_run_request"]["url"], server.base_url() + "/chat/completions");
  EXPECT_EQ(r["dry_run_request"]["body"]["model"], "fake-model");
  EXPECT_EQ(r.dump().find(kFakeKey), std::string::npos);
  const std::string recorded = test::read_text_file(dir_.file("dry.jsonl"));
  EXPECT_EQ(json::parse(recorded), r["dry_run_request"]);
  EXPECT_EQ(recorded.find(kFakeKey), std::string::npos);
  struct stat st {};
  ASSERT_EQ(::stat(dir_.file("dry.jsonl").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 077, 0u);
  // Nothing was spent.
  EXPECT_EQ(SpendLedger(dir_.file("ledger.json")).usage(test::now_ms()).day.handoffs, 0);
}

TEST_F(Hybrid, PrivacySwitchesKeepMediaOnTheDevice) {
  FakeCloudServer server(FakeBehavior::Ok);
  const json with_image = json::parse(R"([{"role":"user","content":[{"type":"text","text":"what is it?"},
      {"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}},
      {"type":"input_audio","input_audio":{"data":"UklGRg==","format":"wav"}}]}])");
  json r = run(openai_options(server), 0.1, with_image);
  EXPECT_EQ(r["dropped_attachments"]["images"], 1);
  EXPECT_EQ(r["dropped_attachments"]["audio"], 1);
  ASSERT_EQ(server.raw_requests().size(), 1u);
  EXPECT_EQ(server.raw_requests()[0].find("iVBORw0KGgo"), std::string::npos);
  EXPECT_EQ(server.raw_requests()[0].find("UklGRg"), std::string::npos);

  json options = openai_options(server);
  options["send_images"] = true;
  json allowed = run(options, 0.1, with_image);
  EXPECT_EQ(allowed["dropped_attachments"]["images"], 0);
  EXPECT_NE(server.raw_requests()[1].find("data:image/png;base64,iVBORw0KGgo="), std::string::npos);
}

TEST_F(Hybrid, AStreamedClipKeepsTheAnswerLocal) {
  // A C API audio stream exists in the caller's process only: the local answer stands, nothing reaches the cloud.
  FakeCloudServer server(FakeBehavior::Ok);
  json r = run(openai_options(server), 0.1, json::parse(R"([{"role":"user","content":[
      {"type":"input_audio","input_audio":{"stream":1}},{"type":"text","text":"what is said?"}]}])"));
  EXPECT_EQ(r["response"], "local answer");
  EXPECT_EQ(r["cloud_handoff"], false);
  EXPECT_EQ(r["handoff_reason"], "invalid_input");
  EXPECT_EQ(r["error"], "messages: messages[0].content[0]: input_audio.stream names a clip only the C API that "
                        "streamed it holds; send input_audio data here");
  EXPECT_TRUE(server.raw_requests().empty());
}

TEST_F(Hybrid, SpendCapHoldsAcrossRestartsOfTheCaller) {
  FakeCloudServer server(FakeBehavior::Ok);
  json options = openai_options(server);
  options["max_handoffs_per_hour"] = 2;
  for (int run_index = 0; run_index < 4; ++run_index) {
    json r = run(options);  // each call builds its options and ledger from scratch, like a new process
    if (run_index < 2) {
      EXPECT_EQ(r["cloud_handoff"], true) << r.dump();
    } else {
      EXPECT_EQ(r["cloud_handoff"], false);
      EXPECT_EQ(r["handoff_reason"], "cap_reached");
      EXPECT_TRUE(r["error"].is_null());
    }
  }
  EXPECT_EQ(server.requests_seen(), 2);
}

TEST_F(Hybrid, CorruptLedgerMeansNoHandoffAndAnError) {
  FakeCloudServer server(FakeBehavior::Ok);
  test::write_text_file(dir_.file("ledger.json"), "{\"version\":1,\"entries\":7}");
  json r = run(openai_options(server));
  EXPECT_EQ(server.requests_seen(), 0);
  EXPECT_EQ(r["response"], "local answer");
  EXPECT_EQ(r["handoff_reason"], "ledger_error");
  EXPECT_NE(r["error"].get<std::string>().find(dir_.file("ledger.json")), std::string::npos);
}

TEST_F(Hybrid, BadInputStillGivesTheLocalAnswer) {
  json r = run({{"cloud_provider", "openai"}, {"cloud_timeout", 5}});
  EXPECT_EQ(r["response"], "local answer");
  EXPECT_EQ(r["error"], "options: unknown option cloud_timeout (docs/handoff.md lists the options)");
  json m = run(json::object(), 0.1, json::parse(R"([{"role":"robot","content":"x"}])"));
  EXPECT_EQ(m["response"], "local answer");
  EXPECT_NE(m["error"].get<std::string>().find("messages[0].role"), std::string::npos);
}

TEST_F(Hybrid, RemoteCloudWithoutKeyOrOverPlainHttpIsRefused) {
  json options = {{"cloud_provider", "openai"}, {"cloud_model", "m"}, {"spend_ledger_path", dir_.file("ledger.json")}};
  HybridHooks no_key;
  no_key.env = test::fake_env({{"HOME", dir_.path()}});
  json r = hybrid_complete_json(kQuestion, options, [] { return LocalAnswer{"local answer", 0.0}; }, no_key);
  EXPECT_NE(r["error"].get<std::string>().find("no API key for openai"), std::string::npos) << r.dump();
  options["cloud_base_url"] = "http://gateway.example.invalid/v1";
  json plain = run(options);
  EXPECT_NE(plain["error"].get<std::string>().find("plain http://"), std::string::npos) << plain.dump();
}

// The response of saguaro_complete with --handoff and of `saguaro complete`: the orchestrator's keys win over the
// local response's, its statistics stay, total_time_ms covers the whole call, and success is set.
TEST_F(Hybrid, LocalStatisticsUnderTheOrchestratorsResponse) {
  const json local = {{"success", true},        {"response", "local answer"}, {"confidence", 0.9},
                      {"error", nullptr},       {"cloud_handoff", false},     {"confidence_source", "entropy"},
                      {"decode_tokens", 7},     {"total_time_ms", 12.5}};
  const json hybrid = {{"response", "cloud answer"}, {"cloud_handoff", true},  {"confidence", 0.9},
                       {"error", nullptr},           {"local_response", "local answer"},
                       {"timings", {{"local_ms", 12}, {"cloud_ms", 30}, {"total_ms", 43}}}};
  const json r = with_local_statistics(local, hybrid);
  EXPECT_EQ(r["response"], "cloud answer");
  EXPECT_EQ(r["cloud_handoff"], true);
  EXPECT_EQ(r["local_response"], "local answer");
  EXPECT_EQ(r["decode_tokens"], 7);
  EXPECT_EQ(r["confidence_source"], "entropy");
  EXPECT_EQ(r["total_time_ms"], 43);
  EXPECT_EQ(r["success"], true);
  EXPECT_EQ(with_local_statistics(json::object(), hybrid)["success"], true);
}

}  // namespace
}  // namespace saguaro::handoff::test
