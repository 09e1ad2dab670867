// tokenizer.json components → tokenizer.bpe step tables. Supported sets are listed in docs/runtime.md.
#include "HfComponents.h"

#include <cstdio>

#include "TableWriter.h"

namespace saguaro {
namespace {

using nlohmann::json;

// Runtime step codes (runtime-min/src/unicode/text_normalizer.h, pre_tokenizer.h, split_patterns.h).
enum : uint8_t { kNFC = 1, kNFD = 2, kNFKC = 3, kNFKD = 4, kReplace = 5, kPrepend = 6, kStrip = 7 };
enum : uint8_t { kSplitPattern = 1, kSplitString = 2, kByteLevel = 3, kDigits = 4, kMetaspace = 5 };

const char* const kGpt2Pattern = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
const char* const kLlama3Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
const char* const kQwen2Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

// The "type" of a component; throws (→ "malformed COMPONENT: ...") when it is missing.
std::string type_of(const json& j) { return j.at("type").get<std::string>(); }

// The array j[key] of a Sequence; throws when it is missing or not an array.
const json& list(const json& j, const char* key) {
  const json& v = j.at(key);
  if (!v.is_array()) throw json::type_error::create(302, std::string(key) + " must be an array", &v);
  return v;
}

bool unsupported(const char* component, const std::string& what, std::string* err) {
  return *err = std::string("unsupported ") + component + " " + what, false;
}

// A {"String": s} pattern; false for {"Regex": ...}.
bool string_pattern(const json& pattern, std::string* s) {
  if (!pattern.contains("String")) return false;
  *s = pattern.at("String").get<std::string>();
  return true;
}

bool add_normalizer(const json& n, std::vector<uint8_t>* steps, uint32_t* count, UnicodeTableNeeds* needs, std::string* err) {
  const std::string type = type_of(n);
  const std::map<std::string, uint8_t> forms = {{"NFC", kNFC}, {"NFD", kNFD}, {"NFKC", kNFKC}, {"NFKD", kNFKD}};
  if (type == "Sequence") {
    for (const json& x : list(n, "normalizers"))
      if (!add_normalizer(x, steps, count, needs, err)) return false;
    return true;
  }
  ++*count;
  if (auto it = forms.find(type); it != forms.end()) {
    needs->normalization = true;
    needs->compat |= it->second == kNFKC || it->second == kNFKD;
    put_u8(steps, it->second);
  } else if (type == "Replace") {
    std::string pattern;
    if (!string_pattern(n.at("pattern"), &pattern) || pattern.empty())
      return unsupported("normalizer", "'Replace' with a regex or empty pattern", err);
    put_u8(steps, kReplace), put_str(steps, pattern), put_str(steps, n.at("content").get<std::string>());
  } else if (type == "Prepend") {
    put_u8(steps, kPrepend), put_str(steps, n.at("prepend").get<std::string>());
  } else if (type == "Strip") {
    needs->classes = true;
    put_u8(steps, kStrip), put_u8(steps, n.value("strip_left", true)), put_u8(steps, n.value("strip_right", true));
  } else {
    return unsupported("normalizer", "'" + type + "'", err);
  }
  return true;
}

uint8_t behavior_code(const std::string& b, std::string* err) {
  const char* const names[] = {"Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"};
  for (uint8_t i = 0; i < 5; ++i)
    if (b == names[i]) return i;
  *err = "unsupported pre_tokenizer Split behavior '" + b + "'";
  return 255;
}

bool add_pre_tokenizer(const json& p, std::vector<uint8_t>* steps, uint32_t* count, UnicodeTableNeeds* needs,
                       bool* byte_level, std::string* err) {
  const std::string type = type_of(p);
  if (type == "Sequence") {
    for (const json& x : list(p, "pretokenizers"))
      if (!add_pre_tokenizer(x, steps, count, needs, byte_level, err)) return false;
    return true;
  }
  if (*byte_level) return unsupported("pre_tokenizer", "'" + type + "' after ByteLevel (ByteLevel must come last)", err);
  ++*count;
  if (type == "Split") {
    const uint8_t behavior = behavior_code(p.at("behavior").get<std::string>(), err);
    if (behavior == 255) return false;
    std::string literal;
    if (string_pattern(p.at("pattern"), &literal)) {
      if (literal.empty()) return unsupported("pre_tokenizer", "Split with an empty pattern", err);
      put_u8(steps, kSplitString), put_str(steps, literal);
    } else {
      const std::string re = p.at("pattern").at("Regex").get<std::string>();
      const uint8_t code = re == kGpt2Pattern ? 1 : re == kLlama3Pattern ? 2 : re == kQwen2Pattern ? 3 : 0;
      if (!code) return unsupported("pre_tokenizer", "Split regex '" + re + "'", err);
      needs->classes = true;
      put_u8(steps, kSplitPattern), put_u8(steps, code);
    }
    put_u8(steps, behavior), put_u8(steps, p.value("invert", false));
  } else if (type == "ByteLevel") {
    const bool use_regex = p.value("use_regex", true);
    needs->classes |= use_regex;
    *byte_level = true;
    put_u8(steps, kByteLevel), put_u8(steps, p.value("add_prefix_space", true)), put_u8(steps, use_regex);
  } else if (type == "Digits") {
    needs->classes = true;
    put_u8(steps, kDigits), put_u8(steps, p.value("individual_digits", false));
  } else if (type == "Metaspace") {
    std::string scheme = p.value("prepend_scheme", p.value("add_prefix_space", true) ? "always" : "never");
    const uint8_t code = scheme == "always" ? 0 : scheme == "first" ? 1 : scheme == "never" ? 2 : 255;
    if (code == 255) return unsupported("pre_tokenizer", "Metaspace prepend_scheme '" + scheme + "'", err);
    put_u8(steps, kMetaspace), put_str(steps, p.value("replacement", "\xE2\x96\x81")), put_u8(steps, code);
    put_u8(steps, p.value("split", true));
  } else {
    return unsupported("pre_tokenizer", "'" + type + "'", err);
  }
  return true;
}

// GPT-2's bytes_to_unicode(): printable Latin-1 bytes stand for themselves, the rest for U+0100 onwards.
uint32_t byte_to_char(uint8_t b) {
  auto printable = [](int c) { return (c >= '!' && c <= '~') || (c >= 0xA1 && c <= 0xAC) || (c >= 0xAE && c <= 0xFF); };
  if (printable(b)) return b;
  uint32_t n = 0;
  for (int c = 0; c < b; ++c) n += !printable(c);
  return 256 + n;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t k = 0; !from.empty() && (k = s.find(from, k)) != std::string::npos; k += to.size()) s.replace(k, from.size(), to);
  return s;
}

}  // namespace

bool compile_normalizer(const json& n, std::vector<uint8_t>* out, UnicodeTableNeeds* needs, std::string* err) {
  std::vector<uint8_t> steps;
  uint32_t count = 0;
  if (!n.is_null() && !add_normalizer(n, &steps, &count, needs, err)) return false;
  put_u32(out, count);
  out->insert(out->end(), steps.begin(), steps.end());
  return true;
}

bool compile_pre_tokenizer(const json& p, std::vector<uint8_t>* out, UnicodeTableNeeds* needs, bool* byte_level,
                           std::string* err) {
  std::vector<uint8_t> steps;
  uint32_t count = 0;
  *byte_level = false;
  if (!p.is_null() && !add_pre_tokenizer(p, &steps, &count, needs, byte_level, err)) return false;
  put_u32(out, count);
  out->insert(out->end(), steps.begin(), steps.end());
  return true;
}

int64_t json_index(const json& v, int64_t limit) {
  if (v.is_number_unsigned()) return v.get<uint64_t>() < static_cast<uint64_t>(limit) ? static_cast<int64_t>(v.get<uint64_t>()) : -1;
  if (!v.is_number_integer()) return -1;
  const int64_t i = v.get<int64_t>();
  return i >= 0 && i < limit ? i : -1;
}

bool byte_level_to_bytes(const std::string& s, std::string* bytes) {
  static const std::map<uint32_t, uint8_t> inverse = [] {
    std::map<uint32_t, uint8_t> m;
    for (int b = 0; b < 256; ++b) m[byte_to_char(static_cast<uint8_t>(b))] = static_cast<uint8_t>(b);
    return m;
  }();
  bytes->clear();
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    uint32_t cp;
    if (c < 0x80) cp = c, i += 1;
    else if ((c & 0xE0) == 0xC0 && i + 1 < s.size()) cp = (c & 0x1Fu) << 6 | (static_cast<unsigned char>(s[i + 1]) & 0x3F), i += 2;
    else return false;
    auto it = inverse.find(cp);
    if (it == inverse.end()) return false;
    bytes->push_back(static_cast<char>(it->second));
  }
  return true;
}

bool TokenDecoder::add(const json& d, bool* fused, std::string* err) {
  const std::string type = type_of(d);
  if (type == "Sequence") {
    for (const json& x : list(d, "decoders"))
      if (!add(x, fused, err)) return false;
    return true;
  }
  if (type == "Fuse") return *fused = true, true;
  if (type == "Strip") {
    const std::string content = d.at("content").get<std::string>();
    const int64_t start = d.contains("start") ? json_index(d["start"], 1 << 16) : 0;
    const int64_t stop = d.contains("stop") ? json_index(d["stop"], 1 << 16) : 0;
    if (start < 0 || stop < 0) return *err = "malformed decoder: 'Strip' start and stop must be small integers", false;
    if (stop) return unsupported("decoder", "'Strip' with stop", err);
    if (*fused) strip_start = static_cast<uint32_t>(start), strip_content = content;
    else steps_.push_back({type, content, "", static_cast<uint32_t>(start)});
    return true;
  }
  if (*fused) return unsupported("decoder", "'" + type + "' after Fuse", err);
  if (type == "ByteLevel" || type == "ByteFallback") {
    steps_.push_back({type});
  } else if (type == "Replace") {
    std::string pattern;
    if (!string_pattern(d.at("pattern"), &pattern)) return unsupported("decoder", "'Replace' with a regex pattern", err);
    steps_.push_back({type, pattern, d.at("content").get<std::string>()});
  } else if (type == "Metaspace") {
    const std::string repl = d.value("replacement", "\xE2\x96\x81");
    steps_.push_back({"Replace", repl, " "});
    const std::string scheme = d.value("prepend_scheme", d.value("add_prefix_space", true) ? "always" : "never");
    if (scheme != "never") strip_start = 1, strip_content = " ";
  } else {
    return unsupported("decoder", "'" + type + "'", err);
  }
  return true;
}

bool TokenDecoder::compile(const json& d, std::string* err) {
  bool fused = false;
  return d.is_null() || add(d, &fused, err);
}

std::string TokenDecoder::piece(const std::string& token) const {
  std::string p = token, bytes;
  for (const Step& s : steps_) {
    if (s.type == "ByteLevel") {
      if (byte_level_to_bytes(p, &bytes)) p = bytes;
    } else if (s.type == "ByteFallback") {
      unsigned v;
      char tail;
      if (p.size() == 6 && p.compare(0, 3, "<0x") == 0 && std::sscanf(p.c_str() + 3, "%2x%c", &v, &tail) == 2 && tail == '>')
        p.assign(1, static_cast<char>(v));
    } else if (s.type == "Replace") {
      p = replace_all(p, s.a, s.b);
    } else if (s.type == "Strip") {
      for (uint32_t k = 0; k < s.n && p.compare(0, s.a.size(), s.a) == 0; ++k) p.erase(0, s.a.size());
    }
  }
  return p;
}

bool compile_post_processor(const json& p, const std::map<std::string, int64_t>& ids, std::vector<int32_t>* prefix,
                            std::vector<int32_t>* suffix, std::string* err) {
  if (p.is_null()) return true;
  const std::string type = type_of(p);
  auto id_of = [&](const std::string& token, std::vector<int32_t>* to) {
    auto it = ids.find(token);
    if (it == ids.end()) return *err = "post_processor token '" + token + "' is not in the vocab", false;
    to->push_back(static_cast<int32_t>(it->second));
    return true;
  };
  if (type == "Sequence") {
    for (const json& x : list(p, "processors"))
      if (!compile_post_processor(x, ids, prefix, suffix, err)) return false;
    return true;
  }
  if (type == "ByteLevel") return true;
  if (type == "TemplateProcessing") {
    bool seen_text = false;
    for (const json& piece : p.at("single")) {
      if (piece.contains("Sequence")) {
        seen_text = true;
        continue;
      }
      const std::string name = piece.at("SpecialToken").at("id").get<std::string>();
      for (const json& id : p.at("special_tokens").at(name).at("ids")) {
        const int64_t v = json_index(id, int64_t(1) << 24);
        if (v < 0) return *err = "post_processor id out of range", false;
        (seen_text ? suffix : prefix)->push_back(static_cast<int32_t>(v));
      }
    }
    return true;
  }
  if (type == "RobertaProcessing" || type == "BertProcessing")
    return id_of(p.at("cls").at(0).get<std::string>(), prefix) && id_of(p.at("sep").at(0).get<std::string>(), suffix);
  return unsupported("post_processor", "'" + type + "'", err);
}

}  // namespace saguaro
