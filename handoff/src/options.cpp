#include "saguaro/handoff/options.h"

#include <cmath>
#include <functional>

#include "saguaro/handoff/error.h"
#include "saguaro/handoff/spend_ledger.h"

namespace saguaro::handoff {
namespace {

using nlohmann::json;

std::string type_name(const json& v) { return v.type_name(); }

std::string read_string(const json& v, const std::string& key) {
  if (!v.is_string()) throw HandoffError("option " + key + " must be a string, not " + type_name(v));
  return v;
}

bool read_bool(const json& v, const std::string& key) {
  if (!v.is_boolean()) throw HandoffError("option " + key + " must be true or false, not " + type_name(v));
  return v;
}

long long read_count(const json& v, const std::string& key, long long min, long long max) {
  if (!v.is_number_integer()) throw HandoffError("option " + key + " must be an integer, not " + type_name(v));
  const long long n = v.get<long long>();
  if (n < min || n > max) {
    throw HandoffError("option " + key + " must be between " + std::to_string(min) + " and " + std::to_string(max));
  }
  return n;
}

std::string read_provider(const json& v, const std::string& key) {
  std::string name = read_string(v, key);
  if (!provider_from_name(name)) throw HandoffError("option " + key + " must be openai, anthropic or gemini, not \"" + name + "\"");
  return name;
}

std::string read_url(const json& v, const std::string& key) {
  std::string url = read_string(v, key);
  if (url.compare(0, 7, "http://") != 0 && url.compare(0, 8, "https://") != 0) {
    throw HandoffError("option " + key + " must start with http:// or https://");
  }
  return url;
}

CloudRoute read_route(const json& v, const std::string& key) {
  if (!v.is_object()) throw HandoffError("option " + key + " must be an object with provider, base_url, model");
  CloudRoute route;
  for (const auto& [field, value] : v.items()) {
    const std::string at = key + "." + field;
    if (field == "provider") route.provider = read_provider(value, at);
    else if (field == "base_url") route.base_url = read_url(value, at);
    else if (field == "model") route.model = read_string(value, at);
    else throw HandoffError("unknown option " + at + " (a route has provider, base_url, model)");
  }
  return route;
}

constexpr long long kMaxCount = 1LL << 40;

// The spend cap an option key sets (kSpendCaps), or null.
const SpendCap* spend_cap(const std::string& key) {
  for (const SpendCap& c : kSpendCaps)
    if (key == c.key) return &c;
  return nullptr;
}

}  // namespace

HandoffOptions parse_options(const json& options, const EnvLookup& env) {
  if (!options.is_null() && !options.is_object()) throw HandoffError("options must be a JSON object");
  HandoffOptions o;
  bool has_provider = false, has_base_url = false, has_model = false, has_ledger = false;
  const json empty = json::object();
  for (const auto& [key, v] : (options.is_null() ? empty : options).items()) {
    if (key == "cloud_provider") o.cloud_provider = read_provider(v, key), has_provider = true;
    else if (key == "cloud_base_url") o.cloud_base_url = read_url(v, key), has_base_url = true;
    else if (key == "cloud_model") o.cloud_model = read_string(v, key), has_model = true;
    else if (key == "cloud_ca_file") o.cloud_ca_file = read_string(v, key);
    else if (key == "cloud_timeout_ms") o.cloud_timeout_ms = read_count(v, key, 100, 600000);
    else if (key == "confidence_threshold") {
      if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0 || v.get<double>() > 1) {
        throw HandoffError("option confidence_threshold must be a number from 0 to 1");
      }
      o.confidence_threshold = v;
    }
    else if (key == "auto_handoff") o.auto_handoff = read_bool(v, key);
    else if (key == "max_cloud_tokens") o.max_cloud_tokens = read_count(v, key, 1, 1000000);
    else if (const SpendCap* cap = spend_cap(key)) o.caps.*cap->window.*cap->count = read_count(v, key, 0, kMaxCount);
    else if (key == "routes") {
      if (!v.is_object()) throw HandoffError("option routes must be an object mapping a task tag to a route");
      for (const auto& [tag, route] : v.items()) o.routes[tag] = read_route(route, "routes." + tag);
    }
    else if (key == "send_images") o.send_images = read_bool(v, key);
    else if (key == "send_audio") o.send_audio = read_bool(v, key);
    else if (key == "dry_run") o.dry_run = read_bool(v, key);
    else if (key == "dry_run_path") o.dry_run_path = read_string(v, key);
    else if (key == "spend_ledger_path") o.spend_ledger_path = read_string(v, key), has_ledger = true;
    else throw HandoffError("unknown option " + key + " (docs/handoff.md lists the options)");
  }
  if (!has_provider) {
    if (auto p = env("SAGUARO_CLOUD_PROVIDER")) o.cloud_provider = read_provider(*p, "SAGUARO_CLOUD_PROVIDER");
  }
  if (!has_base_url) {
    if (auto u = env("SAGUARO_CLOUD_BASE_URL")) o.cloud_base_url = read_url(*u, "SAGUARO_CLOUD_BASE_URL");
  }
  if (!has_model) {
    if (auto m = env("SAGUARO_CLOUD_MODEL")) o.cloud_model = *m;
  }
  if (!has_ledger || o.spend_ledger_path.empty()) {
    // Without HOME (some embedded targets) the path stays empty: local-only use still works, and any handoff
    // fails closed at the ledger with a message saying to set spend_ledger_path.
    try {
      o.spend_ledger_path = default_spend_ledger_path(env);
    } catch (const HandoffError&) {
      o.spend_ledger_path.clear();
    }
  }
  return o;
}

std::optional<CloudTarget> resolve_target(const HandoffOptions& options, const std::string& task_tag,
                                          std::string* why) {
  std::string provider = options.cloud_provider;
  std::string base_url = options.cloud_base_url;
  std::string model = options.cloud_model;
  std::string origin = "cloud_provider";
  if (auto it = options.routes.find(task_tag); !task_tag.empty() && it != options.routes.end()) {
    const CloudRoute& route = it->second;
    origin = "routes." + task_tag;
    if (route.provider && *route.provider != provider) {
      provider = *route.provider;
      base_url.clear();
      model.clear();
    }
    if (route.base_url) base_url = *route.base_url;
    if (route.model) model = *route.model;
  }
  auto kind = provider_from_name(provider);
  if (!kind) {
    if (why) *why = "no cloud provider configured (set cloud_provider or SAGUARO_CLOUD_PROVIDER)";
    return std::nullopt;
  }
  if (model.empty()) {
    if (why) *why = "no cloud model configured for " + origin + " (set cloud_model or SAGUARO_CLOUD_MODEL)";
    return std::nullopt;
  }
  return CloudTarget{*kind, base_url.empty() ? default_base_url(*kind) : base_url, model};
}

}  // namespace saguaro::handoff
