#include <gtest/gtest.h>

#include <cmath>

#include "saguaro/handoff/policy.h"
#include "test_support.h"

namespace saguaro::handoff::test {
namespace {

using nlohmann::json;

HandoffOptions options_for(const TempDir& dir, json extra = json::object()) {
  json o = {{"cloud_provider", "openai"}, {"cloud_model", "m"}, {"confidence_threshold", 0.6},
            {"spend_ledger_path", dir.file("ledger.json")}};
  o.update(extra);
  return parse_options(o, test::fake_env({}));
}

TEST(Policy, EachReason) {
  TempDir dir;
  SpendLedger ledger(dir.file("ledger.json"));
  const long long now = test::now_ms();
  auto decide_with = [&](double confidence, json extra) {
    return decide(confidence, "", options_for(dir, std::move(extra)), ledger, 100, now);
  };
  Decision confident = decide_with(0.9, json::object());
  EXPECT_FALSE(confident.handoff);
  EXPECT_EQ(confident.reason, "confident");
  Decision handoff = decide_with(0.2, json::object());
  EXPECT_TRUE(handoff.handoff);
  EXPECT_EQ(handoff.reason, "below_threshold");
  ASSERT_TRUE(handoff.target);
  EXPECT_EQ(handoff.target->base_url, "https://api.openai.com/v1");
  EXPECT_EQ(decide_with(0.2, {{"auto_handoff", false}}).reason, "auto_handoff_off");
  Decision dry = decide_with(0.2, {{"dry_run", true}});
  EXPECT_FALSE(dry.handoff);
  EXPECT_TRUE(dry.dry_run);
  EXPECT_EQ(dry.reason, "dry_run");
  EXPECT_EQ(decide_with(0.2, {{"max_handoffs_per_day", 0}}).reason, "cap_reached");
  EXPECT_EQ(decide_with(0.2, {{"max_cloud_tokens_per_hour", 99}}).reason, "cap_reached");
  EXPECT_EQ(decide_with(0.2, {{"cloud_provider", "gemini"}, {"cloud_model", ""}}).reason, "no_cloud_target");
  EXPECT_EQ(decide_with(std::nan(""), json::object()).reason, "below_threshold");
  EXPECT_EQ(decide_with(0.6, json::object()).reason, "confident");  // the threshold itself is confident enough
}

TEST(Policy, CorruptLedgerFailsClosed) {
  TempDir dir;
  test::write_text_file(dir.file("ledger.json"), "garbage");
  SpendLedger ledger(dir.file("ledger.json"));
  Decision d = decide(0.1, "", options_for(dir), ledger, 100, test::now_ms());
  EXPECT_FALSE(d.handoff);
  EXPECT_EQ(d.reason, "ledger_error");
  EXPECT_NE(d.detail.find(dir.file("ledger.json")), std::string::npos);

  HandoffOptions no_home = options_for(dir);
  no_home.spend_ledger_path.clear();
  Decision without_ledger = decide(0.1, "", no_home, SpendLedger(""), 100, test::now_ms());
  EXPECT_FALSE(without_ledger.handoff);
  EXPECT_EQ(without_ledger.reason, "ledger_error");
  EXPECT_NE(without_ledger.detail.find("spend_ledger_path"), std::string::npos);
}

}  // namespace
}  // namespace saguaro::handoff::test
