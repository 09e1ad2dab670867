#include "saguaro/handoff/redact.h"

#include <algorithm>
#include <cctype>
#include <mutex>
#include <vector>

namespace saguaro::handoff {
namespace {

constexpr const char* kMask = "[REDACTED]";

std::mutex& secrets_mutex() {
  static std::mutex m;
  return m;
}
std::vector<std::string>& secrets() {
  static std::vector<std::string> s;
  return s;
}

bool is_token_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' || c == '~' || c == '+' ||
         c == '/' || c == '=';
}

void replace_all(std::string& text, const std::string& needle) {
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    text.replace(at, needle.size(), kMask);
  }
}

bool iequals_at(const std::string& text, size_t at, const std::string& word) {
  if (at + word.size() > text.size()) return false;
  for (size_t i = 0; i < word.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[at + i])) != word[i]) return false;
  }
  return true;
}

// Masks the token that follows each case-insensitive occurrence of marker. Header-name markers need a ':' before
// the value, so prose such as "x-api-key header is required" stays readable.
void mask_after(std::string& text, const std::string& marker, bool needs_colon) {
  for (size_t at = 0; at < text.size(); ++at) {
    if (!iequals_at(text, at, marker)) continue;
    size_t start = at + marker.size();
    bool saw_colon = false;
    while (start < text.size() && (text[start] == ' ' || text[start] == ':' || text[start] == '"')) {
      saw_colon = saw_colon || text[start] == ':';
      ++start;
    }
    if (needs_colon && !saw_colon) continue;
    size_t end = start;
    while (end < text.size() && is_token_char(text[end])) ++end;
    if (end - start >= 4 && text.compare(start, end - start, kMask) != 0) {
      text.replace(start, end - start, kMask);
    }
    at = start;
  }
}

// Masks tokens that look like provider keys even if never registered: OpenAI/Anthropic keys start with "sk-",
// Google API keys with "AIza".
void mask_key_shaped(std::string& text, const std::string& prefix) {
  for (size_t at = text.find(prefix); at != std::string::npos; at = text.find(prefix, at + 1)) {
    if (at > 0 && is_token_char(text[at - 1])) continue;
    size_t end = at;
    while (end < text.size() && is_token_char(text[end]) && text[end] != '.') ++end;
    if (end - at >= 12) text.replace(at, end - at, kMask);
  }
}

}  // namespace

void register_secret(const std::string& secret) {
  if (secret.size() < 4) return;
  std::lock_guard<std::mutex> lock(secrets_mutex());
  auto& s = secrets();
  if (std::find(s.begin(), s.end(), secret) == s.end()) s.push_back(secret);
  // Longest first, so a key that contains another registered key is masked whole.
  std::sort(s.begin(), s.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

std::string redact_known_secrets(std::string text) {
  std::lock_guard<std::mutex> lock(secrets_mutex());
  for (const auto& secret : secrets()) replace_all(text, secret);
  return text;
}

std::string redact(std::string text) {
  text = redact_known_secrets(std::move(text));
  mask_after(text, "bearer ", false);
  mask_after(text, "x-api-key", true);
  mask_after(text, "x-goog-api-key", true);
  mask_after(text, "key=", false);
  mask_key_shaped(text, "sk-");
  mask_key_shaped(text, "AIza");
  return text;
}

}  // namespace saguaro::handoff
