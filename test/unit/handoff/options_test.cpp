#include <gtest/gtest.h>

#include "saguaro/completion_options.h"
#include "saguaro/handoff/error.h"
#include "saguaro/handoff/options.h"
#include "test_support.h"

namespace saguaro::handoff::test {
namespace {

using nlohmann::json;

std::string error_of(const json& options, const EnvLookup& env = fake_env({{"HOME", "/home/u"}})) {
  try {
    parse_options(options, env);
  } catch (const HandoffError& e) {
    return e.what();
  }
  return "";
}

// The C API (capi.cpp) tells handoff policy keys from unknown ones by completion_options.h's list: every key
// there is one parse_options knows (a wrong value is an error about the value, not an unknown option), and keys
// parse_options does not know are not in it.
TEST(Options, PolicyKeyListOfTheCApiMatchesParseOptions) {
  for (std::string_view name : kHandoffPolicyOptions) {
    const std::string key(name);
    EXPECT_TRUE(is_handoff_policy_option(key)) << key;
    const std::string err = error_of(json{{key, json::array({1, 2})}});
    EXPECT_NE(err, "") << key;
    EXPECT_EQ(err.find("unknown option"), std::string::npos) << key << ": " << err;
  }
  for (const char* key : {"cloud_key", "max_tokens", "temperature", "provider", ""}) {
    EXPECT_FALSE(is_handoff_policy_option(key)) << key;
    EXPECT_NE(error_of(json{{key, 1}}).find("unknown option"), std::string::npos) << key;
  }
}

TEST(Options, DefaultsAndLedgerUnderStateDir) {
  HandoffOptions o = parse_options(json::object(), fake_env({{"HOME", "/home/u"}}));
  EXPECT_EQ(o.cloud_provider, "");
  EXPECT_EQ(o.cloud_timeout_ms, 20000);
  EXPECT_TRUE(o.auto_handoff);
  EXPECT_FALSE(o.send_images);
  EXPECT_FALSE(o.send_audio);
  EXPECT_FALSE(o.dry_run);
  EXPECT_EQ(o.spend_ledger_path, "/home/u/.local/state/saguaro/spend-ledger.json");
  o = parse_options(json::object(), fake_env({{"HOME", "/home/u"}, {"XDG_STATE_HOME", "/xdg/state"}}));
  EXPECT_EQ(o.spend_ledger_path, "/xdg/state/saguaro/spend-ledger.json");
}

TEST(Options, EveryKeyIsRead) {
  json in = json::parse(R"({
    "cloud_provider": "anthropic", "cloud_base_url": "https://gw.example/anthropic", "cloud_model": "claude-x",
    "cloud_ca_file": "/tmp/ca.pem", "cloud_timeout_ms": 1500, "confidence_threshold": 0.25, "auto_handoff": false,
    "max_cloud_tokens": 77, "max_handoffs_per_hour": 1, "max_handoffs_per_day": 2, "max_cloud_tokens_per_hour": 3,
    "max_cloud_tokens_per_day": 4, "routes": {"math": {"provider": "gemini", "model": "gemini-2.0-flash"}},
    "send_images": true, "send_audio": true, "dry_run": true, "dry_run_path": "/tmp/d.jsonl",
    "spend_ledger_path": "/tmp/ledger.json"})");
  HandoffOptions o = parse_options(in, fake_env({}));
  EXPECT_EQ(o.cloud_provider, "anthropic");
  EXPECT_EQ(o.cloud_base_url, "https://gw.example/anthropic");
  EXPECT_EQ(o.cloud_model, "claude-x");
  EXPECT_EQ(o.cloud_ca_file, "/tmp/ca.pem");
  EXPECT_EQ(o.cloud_timeout_ms, 1500);
  EXPECT_DOUBLE_EQ(o.confidence_threshold, 0.25);
  EXPECT_FALSE(o.auto_handoff);
  EXPECT_EQ(o.max_cloud_tokens, 77);
  EXPECT_EQ(o.caps.hour.handoffs, 1);
  EXPECT_EQ(o.caps.day.handoffs, 2);
  EXPECT_EQ(o.caps.hour.tokens, 3);
  EXPECT_EQ(o.caps.day.tokens, 4);
  ASSERT_EQ(o.routes.count("math"), 1u);
  EXPECT_EQ(*o.routes["math"].provider, "gemini");
  EXPECT_TRUE(o.send_images && o.send_audio && o.dry_run);
  EXPECT_EQ(o.dry_run_path, "/tmp/d.jsonl");
  EXPECT_EQ(o.spend_ledger_path, "/tmp/ledger.json");
}

TEST(Options, EnvironmentFillsTargetAndOptionsWin) {
  auto env = fake_env({{"HOME", "/h"},
                       {"SAGUARO_CLOUD_PROVIDER", "gemini"},
                       {"SAGUARO_CLOUD_BASE_URL", "http://127.0.0.1:8080"},
                       {"SAGUARO_CLOUD_MODEL", "env-model"}});
  HandoffOptions from_env = parse_options(json::object(), env);
  EXPECT_EQ(from_env.cloud_provider, "gemini");
  EXPECT_EQ(from_env.cloud_base_url, "http://127.0.0.1:8080");
  EXPECT_EQ(from_env.cloud_model, "env-model");
  HandoffOptions mixed = parse_options(json{{"cloud_provider", "openai"}, {"cloud_model", "opt-model"}}, env);
  EXPECT_EQ(mixed.cloud_provider, "openai");
  EXPECT_EQ(mixed.cloud_model, "opt-model");
  EXPECT_EQ(mixed.cloud_base_url, "http://127.0.0.1:8080");
  EXPECT_NE(error_of(json::object(), fake_env({{"HOME", "/h"}, {"SAGUARO_CLOUD_PROVIDER", "bard"}}))
                .find("SAGUARO_CLOUD_PROVIDER"),
            std::string::npos);
}

TEST(Options, BadInputNamesTheKey) {
  EXPECT_NE(error_of(json{{"cloud_timeout", 5}}).find("unknown option cloud_timeout"), std::string::npos);
  EXPECT_NE(error_of(json{{"cloud_timeout_ms", "5"}}).find("cloud_timeout_ms must be an integer"), std::string::npos);
  EXPECT_NE(error_of(json{{"cloud_timeout_ms", 0}}).find("cloud_timeout_ms must be between"), std::string::npos);
  EXPECT_NE(error_of(json{{"auto_handoff", 1}}).find("auto_handoff must be true or false"), std::string::npos);
  EXPECT_NE(error_of(json{{"confidence_threshold", 1.5}}).find("confidence_threshold"), std::string::npos);
  EXPECT_NE(error_of(json{{"cloud_provider", "bard"}}).find("openai, anthropic or gemini"), std::string::npos);
  EXPECT_NE(error_of(json{{"cloud_base_url", "ftp://x"}}).find("cloud_base_url must start"), std::string::npos);
  EXPECT_NE(error_of(json{{"routes", {{"math", {{"modle", "x"}}}}}}).find("routes.math.modle"), std::string::npos);
  EXPECT_NE(error_of(json{{"max_handoffs_per_hour", -1}}).find("max_handoffs_per_hour"), std::string::npos);
  EXPECT_NE(error_of(json::array()).find("options must be a JSON object"), std::string::npos);
  EXPECT_EQ(error_of(json{{"send_images", false}}), "");
}

TEST(Options, RoutesOverrideTheTargetPerTask) {
  HandoffOptions o = parse_options(json::parse(R"({
    "cloud_provider": "openai", "cloud_base_url": "http://127.0.0.1:1/v1", "cloud_model": "base-model",
    "routes": {"code": {"model": "code-model"},
               "vision": {"provider": "gemini", "model": "gemini-2.0-flash"},
               "broken": {"provider": "anthropic"}}})"), fake_env({}));
  std::string why;
  auto plain = resolve_target(o, "", &why);
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->model, "base-model");
  EXPECT_EQ(plain->base_url, "http://127.0.0.1:1/v1");
  auto code = resolve_target(o, "code", &why);
  ASSERT_TRUE(code);
  EXPECT_EQ(code->provider, ProviderKind::OpenAI);
  EXPECT_EQ(code->model, "code-model");
  EXPECT_EQ(code->base_url, "http://127.0.0.1:1/v1");
  auto vision = resolve_target(o, "vision", &why);
  ASSERT_TRUE(vision);
  EXPECT_EQ(vision->provider, ProviderKind::Gemini);
  EXPECT_EQ(vision->base_url, "https://generativelanguage.googleapis.com");  // not the openai gateway
  EXPECT_FALSE(resolve_target(o, "broken", &why));  // switching provider drops the inherited model
  EXPECT_NE(why.find("routes.broken"), std::string::npos);
  EXPECT_EQ(resolve_target(o, "unknown-tag", &why)->model, "base-model");
  HandoffOptions none = parse_options(json::object(), fake_env({}));
  EXPECT_EQ(none.spend_ledger_path, "");  // no HOME: no default ledger, so any handoff fails closed
  EXPECT_FALSE(resolve_target(none, "", &why));
  EXPECT_NE(why.find("no cloud provider"), std::string::npos);
}

}  // namespace
}  // namespace saguaro::handoff::test
