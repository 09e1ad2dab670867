// Tokenizer importers. The tokenizer.bpe byte format is documented in runtime-min/src/tokenizer_bpe.cpp.
#include "TokenizerImport.h"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>
#include <unordered_map>

#include "HfComponents.h"
#include "TableWriter.h"
#include "UnicodeTables.h"

namespace saguaro {
namespace {

using nlohmann::json;

bool read_file(const std::string& path, std::vector<uint8_t>* out, std::string* err) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return *err = path + ": cannot open", false;
  out->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return true;
}

int32_t get_i32(const uint8_t* p) {
  return static_cast<int32_t>(uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24);
}

bool is_dir(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string dir_of(const std::string& p) {
  const size_t slash = p.find_last_of('/');
  return slash == std::string::npos ? "." : p.substr(0, slash);
}

// A special token in tokenizer_config.json: a string, {"content": ...}, or null.
std::string token_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_object() && v.contains("content") && v["content"].is_string()) return v["content"].get<std::string>();
  return "";
}

// Token flags of the tokenizer.bpe table (runtime-min/src/tokenizer_bpe.cpp).
enum : uint8_t { kAdded = 1, kSpecial = 2, kLstrip = 4, kRstrip = 8, kSingleWord = 16, kNormalized = 32, kHasPiece = 64,
                 kUnreachable = 128 };

struct Token {
  std::string text;  // as tokenizer.json spells it
  uint8_t flags = kUnreachable;
};

// Runs one component's translation, turning JSON type errors into "malformed COMPONENT: ..." lines.
template <typename F>
bool component(const char* name, std::string* err, F f) {
  try {
    return f();
  } catch (const json::exception& e) {
    return *err = std::string("malformed ") + name + ": " + e.what(), false;
  }
}

// Reads the two halves of a merge: "a b" or ["a", "b"].
bool merge_pair(const json& m, std::string* a, std::string* b) {
  if (m.is_array() && m.size() == 2) return *a = m[0].get<std::string>(), *b = m[1].get<std::string>(), true;
  if (!m.is_string()) return false;
  const std::string s = m.get<std::string>();
  const size_t sp = s.find(' ');
  if (sp == std::string::npos || s.find(' ', sp + 1) != std::string::npos) return false;
  return *a = s.substr(0, sp), *b = s.substr(sp + 1), true;
}

bool import_hf(const std::string& json_path, std::vector<uint8_t>* bytes,
               std::vector<std::pair<std::string, std::string>>* meta, std::string* err) {
  std::vector<uint8_t> raw;
  if (!read_file(json_path, &raw, err)) return false;
  const json tj = json::parse(raw.begin(), raw.end());
  if (!tj.is_object()) return *err = json_path + ": malformed tokenizer JSON: not an object", false;
  std::string problem;
  const std::string where = json_path + ": ";
  auto fail = [&]() { return *err = where + problem, false; };
  auto field = [&](const char* k) { return tj.contains(k) ? tj[k] : json(); };

  if (!tj.contains("model") || !tj["model"].is_object()) return *err = where + "malformed model: missing", false;
  const json& model = tj["model"];
  if (model.value("type", "BPE") != "BPE") return *err = where + "unsupported model '" + model.value("type", "") + "' (only BPE)", false;
  if (model.contains("dropout") && !model["dropout"].is_null()) return *err = where + "unsupported model.dropout", false;

  UnicodeTableNeeds needs;
  std::vector<uint8_t> normalizer, pre_tokenizer;
  bool byte_level = false;
  TokenDecoder decoder;
  if (!component("normalizer", &problem, [&] { return compile_normalizer(field("normalizer"), &normalizer, &needs, &problem); }) ||
      !component("pre_tokenizer", &problem, [&] { return compile_pre_tokenizer(field("pre_tokenizer"), &pre_tokenizer, &needs, &byte_level, &problem); }) ||
      !component("decoder", &problem, [&] { return decoder.compile(field("decoder"), &problem); }))
    return fail();

  // id → token; vocab (model) and all (model + added) text → id.
  std::map<int64_t, Token> tokens;
  std::unordered_map<std::string, int64_t> vocab;
  std::map<std::string, int64_t> all;
  std::string prefix, suffix;
  if (!component("model", &problem, [&] {
        for (const char* k : {"continuing_subword_prefix", "end_of_word_suffix"})
          if (model.contains(k) && !model[k].is_null()) (k[0] == 'c' ? prefix : suffix) = model[k].get<std::string>();
        if (!model.contains("vocab") || !model["vocab"].is_object()) return problem = "malformed model: no vocab object", false;
        for (auto it = model["vocab"].begin(); it != model["vocab"].end(); ++it) {
          const int64_t id = json_index(it.value(), 1 << 24);
          if (id < 0) return problem = "malformed model: vocab id of '" + it.key() + "' is not an integer in [0, 2^24)", false;
          if (!tokens.emplace(id, Token{it.key(), 0}).second)
            return problem = "model: duplicate vocab id " + std::to_string(id), false;
          vocab[it.key()] = all[it.key()] = id;
        }
        return true;
      }) ||
      !component("added_tokens", &problem, [&] {
        for (const json& a : field("added_tokens").is_array() ? field("added_tokens") : json::array()) {
          const int64_t id = json_index(a.at("id"), 1 << 24);
          const std::string content = a.at("content").get<std::string>();
          if (id < 0 || id >= (1 << 24) || content.empty()) return problem = "added_tokens: bad token id or content", false;
          const bool special = a.value("special", false);
          uint8_t f = kAdded | (special ? kSpecial : 0) | (a.value("normalized", !special) ? kNormalized : 0);
          f |= (a.value("lstrip", false) ? kLstrip : 0) | (a.value("rstrip", false) ? kRstrip : 0) |
               (a.value("single_word", false) ? kSingleWord : 0);
          needs.classes |= (f & (kLstrip | kRstrip | kSingleWord)) != 0;
          tokens[id] = Token{content, f};
          all[content] = id;
        }
        return true;
      }))
    return fail();
  if (tokens.empty()) return *err = where + "empty vocab", false;
  const int64_t n_tokens = tokens.rbegin()->first + 1;
  // The tables are dense in ids: a few entries with ids up to 2^24 would make millions of empty pieces (a 1 KB file
  // costing seconds and hundreds of MB; found by fuzz_hf_tokenizer). Real vocabularies leave few or no ids unused.
  constexpr int64_t kMaxUnusedIds = int64_t{1} << 16;
  if (const int64_t unused = n_tokens - static_cast<int64_t>(tokens.size()); unused > kMaxUnusedIds)
    return *err = where + "vocab ids go up to " + std::to_string(n_tokens - 1) + " but " + std::to_string(unused) +
                  " ids below that are unused (at most " + std::to_string(kMaxUnusedIds) + " may be)",
           false;

  std::vector<uint32_t> merges;  // triples
  if (!component("model.merges", &problem, [&] {
        for (const json& m : model.value("merges", json::array())) {
          std::string a, b;
          if (!merge_pair(m, &a, &b)) return problem = "model: bad merge " + m.dump(), false;
          const std::string joined = a + (b.compare(0, prefix.size(), prefix) == 0 ? b.substr(prefix.size()) : b);
          auto ia = vocab.find(a), ib = vocab.find(b), ic = vocab.find(joined);
          if (ia == vocab.end() || ib == vocab.end() || ic == vocab.end())
            return problem = "model: merge '" + a + " " + b + "' refers to a token outside the vocab", false;
          merges.insert(merges.end(), {uint32_t(ia->second), uint32_t(ib->second), uint32_t(ic->second)});
        }
        return true;
      }))
    return fail();

  int32_t unk = -1;
  if (model.contains("unk_token") && model["unk_token"].is_string()) {
    auto it = all.find(model["unk_token"].get<std::string>());
    if (it == all.end()) return *err = where + "model: unk_token is not in the vocab", false;
    unk = static_cast<int32_t>(it->second);
  }

  // Special tokens and BOS/EOS policy: the post_processor, overridden by tokenizer_config.json's add_*_token.
  std::vector<int32_t> post_prefix, post_suffix;
  if (!component("post_processor", &problem, [&] {
        return compile_post_processor(field("post_processor"), all, &post_prefix, &post_suffix, &problem);
      }))
    return fail();
  int64_t bos = -1, eos = -1;
  const std::string cfg_path = dir_of(json_path) + "/tokenizer_config.json";
  std::vector<uint8_t> cfg_raw;
  std::string ignored;
  if (read_file(cfg_path, &cfg_raw, &ignored)) {
    const json cfg = json::parse(cfg_raw.begin(), cfg_raw.end(), nullptr, false);
    if (!cfg.is_object()) return *err = cfg_path + ": malformed JSON", false;
    for (auto [key, out] : {std::make_pair("bos_token", &bos), std::make_pair("eos_token", &eos)}) {
      const std::string text = cfg.contains(key) ? token_text(cfg[key]) : "";
      if (text.empty()) continue;
      auto it = all.find(text);
      if (it == all.end()) return *err = cfg_path + ": " + key + " '" + text + "' is not a token", false;
      *out = it->second;
    }
    for (auto [key, id, ids, front] : {std::make_tuple("add_bos_token", bos, &post_prefix, true),
                                        std::make_tuple("add_eos_token", eos, &post_suffix, false)}) {
      if (!cfg.contains(key) || !cfg[key].is_boolean() || id < 0) continue;
      ids->erase(std::remove(ids->begin(), ids->end(), static_cast<int32_t>(id)), ids->end());
      if (cfg[key].get<bool>()) ids->insert(front ? ids->begin() : ids->end(), static_cast<int32_t>(id));
    }
  }
  // generation_config.json's eos_token_id (one id or a list): the ids generation ends at (Gemma: <eos> and <turn|>).
  std::string stop_ids;
  const std::string gen_path = dir_of(json_path) + "/generation_config.json";
  std::vector<uint8_t> gen_raw;
  if (read_file(gen_path, &gen_raw, &ignored)) {
    const json gen = json::parse(gen_raw.begin(), gen_raw.end(), nullptr, false);
    if (!gen.is_object()) return *err = gen_path + ": malformed JSON", false;
    const json ids = gen.contains("eos_token_id") ? gen["eos_token_id"] : json();
    for (const json& id : ids.is_array() ? ids : ids.is_null() ? json::array() : json::array({ids})) {
      if (json_index(id, n_tokens) < 0)
        return *err = gen_path + ": eos_token_id " + id.dump() + " is not a token id", false;
      stop_ids += (stop_ids.empty() ? "" : ",") + std::to_string(id.get<int64_t>());
    }
  }
  for (int32_t id : post_prefix)
    if (id >= n_tokens) return *err = where + "post_processor id out of range", false;
  for (int32_t id : post_suffix)
    if (id >= n_tokens) return *err = where + "post_processor id out of range", false;

  bytes->clear();
  const char magic[8] = {'S', 'G', 'B', 'P', 'E', '2', '\0', '\0'};
  bytes->insert(bytes->end(), magic, magic + 8);
  put_u32(bytes, static_cast<uint32_t>(n_tokens));
  const size_t merge_count_at = bytes->size();
  put_u32(bytes, 0);
  put_u32(bytes, static_cast<uint32_t>(unk));
  put_u32(bytes, (model.value("byte_fallback", false) ? 1u : 0u) | (model.value("fuse_unk", false) ? 2u : 0u) |
                     (model.value("ignore_merges", false) ? 4u : 0u) | (byte_level ? 8u : 0u));
  put_str(bytes, prefix), put_str(bytes, suffix);
  std::vector<bool> reachable(static_cast<size_t>(n_tokens), false);
  for (int64_t id = 0; id < n_tokens; ++id) {
    auto it = tokens.find(id);
    Token t = it == tokens.end() ? Token{} : it->second;
    std::string stored = t.text;
    if (byte_level && !(t.flags & (kAdded | kUnreachable)) && !byte_level_to_bytes(t.text, &stored)) {
      t.flags |= kUnreachable;  // a model token outside the byte alphabet can never be produced
      stored = t.text;
    }
    reachable[static_cast<size_t>(id)] = !(t.flags & kUnreachable);
    const std::string piece = decoder.piece(t.text);
    if (piece != stored) t.flags |= kHasPiece;
    put_u8(bytes, t.flags), put_str(bytes, stored);
    if (t.flags & kHasPiece) put_str(bytes, piece);
  }
  uint32_t n_merges = 0;
  for (size_t i = 0; i < merges.size(); i += 3) {
    if (!reachable[merges[i]] || !reachable[merges[i + 1]]) continue;
    for (size_t k = 0; k < 3; ++k) put_u32(bytes, merges[i + k]);
    ++n_merges;
  }
  for (int i = 0; i < 4; ++i) (*bytes)[merge_count_at + i] = static_cast<uint8_t>(n_merges >> (8 * i));
  bytes->insert(bytes->end(), normalizer.begin(), normalizer.end());
  bytes->insert(bytes->end(), pre_tokenizer.begin(), pre_tokenizer.end());
  put_u32(bytes, decoder.strip_start), put_str(bytes, decoder.strip_content);
  for (const std::vector<int32_t>* ids : {&post_prefix, &post_suffix}) {
    put_u32(bytes, static_cast<uint32_t>(ids->size()));
    for (int32_t id : *ids) put_u32(bytes, static_cast<uint32_t>(id));
  }
  if (!append_unicode_tables(needs, bytes, err)) return false;

  const bool add_special = !post_prefix.empty() || !post_suffix.empty();
  *meta = {{"tokenizer.kind", "bpe"},
           {"tokenizer.bos_id", std::to_string(post_prefix.empty() ? bos : post_prefix.front())},
           {"tokenizer.eos_id", std::to_string(eos)},
           {"tokenizer.add_bos", add_special ? "1" : "0"},
           {"tokenizer.vocab_size", std::to_string(n_tokens)}};
  if (!stop_ids.empty()) meta->push_back({"tokenizer.stop_ids", stop_ids});
  return true;
}

}  // namespace

bool import_llama2c_tokenizer(const std::string& path, std::vector<uint8_t>* bytes,
                              std::vector<std::pair<std::string, std::string>>* meta, std::string* err) {
  if (!read_file(path, bytes, err)) return false;
  const std::vector<uint8_t>& b = *bytes;
  if (b.size() < 4 || get_i32(b.data()) <= 0) return *err = path + ": not a llama2.c tokenizer (bad header)", false;
  size_t p = 4, n = 0;
  while (p < b.size()) {
    if (b.size() - p < 8) return *err = path + ": truncated at token " + std::to_string(n), false;
    const int32_t len = get_i32(b.data() + p + 4);
    p += 8;
    if (len < 0 || static_cast<size_t>(len) > b.size() - p)
      return *err = path + ": truncated at token " + std::to_string(n), false;
    p += static_cast<size_t>(len);
    ++n;
  }
  if (n < 3) return *err = path + ": fewer than 3 tokens", false;
  *meta = {{"tokenizer.kind", "llama2c"},
           {"tokenizer.bos_id", "1"},
           {"tokenizer.eos_id", "2"},
           {"tokenizer.add_bos", "1"},
           {"tokenizer.vocab_size", std::to_string(n)}};
  return true;
}

bool import_hf_tokenizer(const std::string& dir_or_tokenizer_json, std::vector<uint8_t>* bytes,
                         std::vector<std::pair<std::string, std::string>>* meta, std::string* err) {
  const std::string path =
      is_dir(dir_or_tokenizer_json) ? dir_or_tokenizer_json + "/tokenizer.json" : dir_or_tokenizer_json;
  try {
    return import_hf(path, bytes, meta, err);
  } catch (const std::exception& e) {
    return *err = path + ": malformed tokenizer JSON: " + e.what(), false;
  }
}

}  // namespace saguaro
