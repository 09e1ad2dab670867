// The forms an image or audio reference takes in a request (OpenAI's image_url.url, Cactus' "images" paths), and the
// base64 codec of data: URIs. Header-only: the runtime (local answer) and handoff/ (what goes to the cloud) read the
// same rules. Remote URLs are refused: the device is offline by design, and a fetchable address sent to a provider
// would leak what the local model never saw.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace saguaro {

/// A media reference: the payload of a data: URI, or a file on this device.
struct MediaUrl {
  enum Kind { kData, kFile };
  Kind kind = kData;
  std::string mime;     // kData: the URI's type, e.g. image/png
  std::string payload;  // kData: the base64 text; kFile: the path
};

/// Parses "data:<mime>;base64,<data>", "file://<path>" or a plain path; false + a one-line reason (for `at`) for a
/// remote or malformed URL.
inline bool parse_media_url(const std::string& url, const std::string& at, MediaUrl* out, std::string* err) {
  if (url.compare(0, 5, "data:") == 0) {
    const size_t marker = url.find(";base64,");
    if (marker == std::string::npos || marker + 8 == url.size())
      return *err = at + ": a data: URI must be data:<mime>;base64,<data>", false;
    *out = {MediaUrl::kData, url.substr(5, marker - 5), url.substr(marker + 8)};
    return true;
  }
  if (url.compare(0, 7, "file://") == 0) return *out = {MediaUrl::kFile, "", url.substr(7)}, true;
  const size_t scheme = url.find("://");
  if (scheme != std::string::npos && url.find('/') > scheme)
    return *err = at + ": remote URLs are not fetched (the device is offline by design)", false;
  if (url.empty()) return *err = at + ": empty URL", false;
  return *out = {MediaUrl::kFile, "", url}, true;
}

/// Standard base64 (RFC 4648, padding optional, no whitespace); false on any other character.
inline bool base64_decode(const std::string& text, std::vector<uint8_t>* out) {
  out->clear();
  out->reserve(text.size() / 4 * 3);
  uint32_t acc = 0;
  int bits = 0;
  size_t end = text.size();
  while (end > 0 && text[end - 1] == '=' && text.size() - end < 2) --end;
  for (size_t k = 0; k < end; ++k) {
    const char c = text[k];
    const int v = c >= 'A' && c <= 'Z' ? c - 'A' : c >= 'a' && c <= 'z' ? c - 'a' + 26 : c >= '0' && c <= '9' ? c - '0' + 52
                  : c == '+' ? 62 : c == '/' ? 63 : -1;
    if (v < 0) return false;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    if ((bits += 6) >= 8) out->push_back(static_cast<uint8_t>(acc >> (bits -= 8)));
  }
  return bits < 6;  // a lone trailing character cannot end a base64 text
}

/// Standard base64 with padding.
inline std::string base64_encode(const uint8_t* data, size_t size) {
  static const char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((size + 2) / 3 * 4);
  for (size_t k = 0; k < size; k += 3) {
    const uint32_t n = uint32_t(data[k]) << 16 | (k + 1 < size ? uint32_t(data[k + 1]) << 8 : 0) |
                       (k + 2 < size ? uint32_t(data[k + 2]) : 0);
    out += kDigits[n >> 18 & 63];
    out += kDigits[n >> 12 & 63];
    out += k + 1 < size ? kDigits[n >> 6 & 63] : '=';
    out += k + 2 < size ? kDigits[n & 63] : '=';
  }
  return out;
}

}  // namespace saguaro
