// Tokenizer importers. The tokenizer.bpe byte format is documented in runtime-min/src/tokenizer_bpe.cpp.
#include "TokenizerImport.h"

#include <sys/stat.h>

#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>

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

void put_u32(std::vector<uint8_t>* b, uint32_t v) {
  for (int i = 0; i < 4; ++i) b->push_back(static_cast<uint8_t>(v >> (8 * i)));
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

// Component types this converter supports for the decoder (pieces are concatenated, "<0xXX>" → byte).
bool decoder_supported(const json& d, std::string* bad) {
  if (d.is_null()) return true;
  const std::string type = d.value("type", "");
  if (type == "ByteFallback" || type == "Fuse") return true;
  if (type == "Sequence" && d.contains("decoders") && d["decoders"].is_array()) {
    for (const json& x : d["decoders"])
      if (!decoder_supported(x, bad)) return false;
    return true;
  }
  *bad = type.empty() ? "unknown" : type;
  return false;
}

bool import_hf(const std::string& json_path, std::vector<uint8_t>* bytes,
               std::vector<std::pair<std::string, std::string>>* meta, std::string* err) {
  std::vector<uint8_t> raw;
  if (!read_file(json_path, &raw, err)) return false;
  const json tj = json::parse(raw.begin(), raw.end());
  const std::string where = json_path + ": ";
  auto reject = [&](const std::string& what) { return *err = where + "unsupported " + what, false; };
  if (tj.contains("normalizer") && !tj["normalizer"].is_null())
    return reject("normalizer '" + tj["normalizer"].value("type", "?") + "' (only none is supported)");
  if (tj.contains("pre_tokenizer") && !tj["pre_tokenizer"].is_null())
    return reject("pre_tokenizer '" + tj["pre_tokenizer"].value("type", "?") + "' (only none is supported)");
  std::string bad_decoder;
  if (tj.contains("decoder") && !decoder_supported(tj["decoder"], &bad_decoder))
    return reject("decoder '" + bad_decoder + "' (supported: none, ByteFallback, Fuse)");
  const json& model = tj.at("model");
  if (model.value("type", "BPE") != "BPE") return reject("model '" + model.value("type", "") + "' (only BPE)");
  if (model.contains("dropout") && !model["dropout"].is_null()) return reject("model.dropout");
  for (const char* k : {"continuing_subword_prefix", "end_of_word_suffix"})
    if (model.contains(k) && !model[k].is_null() && model[k] != "") return reject(std::string("model.") + k);

  // id → (text, kind): kind 0 model vocab, 1 added, 3 added special.
  std::map<int64_t, std::pair<std::string, uint8_t>> tokens;
  std::map<std::string, int64_t> ids;
  for (auto it = model.at("vocab").begin(); it != model.at("vocab").end(); ++it) {
    const int64_t id = it.value().get<int64_t>();
    if (id < 0 || id >= (1 << 24) || !tokens.emplace(id, std::make_pair(it.key(), uint8_t(0))).second)
      return *err = where + "bad or duplicate vocab id " + std::to_string(id), false;
    ids[it.key()] = id;
  }
  if (tj.contains("added_tokens") && tj["added_tokens"].is_array()) {
    for (const json& a : tj["added_tokens"]) {
      for (const char* k : {"lstrip", "rstrip", "single_word"})
        if (a.value(k, false)) return reject(std::string("added token option '") + k + "' on " + a.value("content", ""));
      const int64_t id = a.at("id").get<int64_t>();
      const std::string content = a.at("content").get<std::string>();
      if (id < 0 || id >= (1 << 24) || content.empty()) return *err = where + "bad added token", false;
      tokens[id] = {content, static_cast<uint8_t>(a.value("special", false) ? 3 : 1)};
      ids[content] = id;
    }
  }
  if (tokens.empty()) return *err = where + "empty vocab", false;
  const int64_t n_tokens = tokens.rbegin()->first + 1;

  std::vector<uint32_t> merges;  // triples
  for (const json& m : model.value("merges", json::array())) {
    std::string a, b;
    if (m.is_string()) {
      const std::string s = m.get<std::string>();
      const size_t sp = s.find(' ');
      if (sp == std::string::npos) return *err = where + "bad merge '" + s + "'", false;
      a = s.substr(0, sp), b = s.substr(sp + 1);
    } else {
      a = m.at(0).get<std::string>(), b = m.at(1).get<std::string>();
    }
    auto ia = ids.find(a), ib = ids.find(b), ic = ids.find(a + b);
    if (ia == ids.end() || ib == ids.end() || ic == ids.end())
      return *err = where + "merge '" + a + " " + b + "' refers to a token outside the vocab", false;
    merges.insert(merges.end(), {uint32_t(ia->second), uint32_t(ib->second), uint32_t(ic->second)});
  }

  int32_t unk = -1;
  if (model.contains("unk_token") && model["unk_token"].is_string()) {
    auto it = ids.find(model["unk_token"].get<std::string>());
    if (it == ids.end()) return *err = where + "unk_token is not in the vocab", false;
    unk = static_cast<int32_t>(it->second);
  }
  const uint32_t flags = (model.value("byte_fallback", false) ? 1u : 0u) | (model.value("fuse_unk", false) ? 2u : 0u) |
                         (model.value("ignore_merges", false) ? 4u : 0u);

  bytes->clear();
  const char magic[8] = {'S', 'G', 'B', 'P', 'E', '1', '\0', '\0'};
  bytes->insert(bytes->end(), magic, magic + 8);
  put_u32(bytes, static_cast<uint32_t>(n_tokens));
  put_u32(bytes, static_cast<uint32_t>(merges.size() / 3));
  put_u32(bytes, static_cast<uint32_t>(unk));
  put_u32(bytes, flags);
  for (int64_t id = 0; id < n_tokens; ++id) {
    auto it = tokens.find(id);
    bytes->push_back(it == tokens.end() ? 255 : it->second.second);
    const std::string text = it == tokens.end() ? "" : it->second.first;
    put_u32(bytes, static_cast<uint32_t>(text.size()));
    bytes->insert(bytes->end(), text.begin(), text.end());
  }
  for (uint32_t v : merges) put_u32(bytes, v);

  // Special tokens and BOS policy from tokenizer_config.json, when present.
  int64_t bos = -1, eos = -1;
  bool add_bos = false;
  const std::string cfg_path = dir_of(json_path) + "/tokenizer_config.json";
  std::vector<uint8_t> cfg_raw;
  std::string ignored;
  if (read_file(cfg_path, &cfg_raw, &ignored)) {
    const json cfg = json::parse(cfg_raw.begin(), cfg_raw.end());
    for (auto [key, out] : {std::make_pair("bos_token", &bos), std::make_pair("eos_token", &eos)}) {
      const std::string text = cfg.contains(key) ? token_text(cfg[key]) : "";
      if (text.empty()) continue;
      auto it = ids.find(text);
      if (it == ids.end()) return *err = cfg_path + ": " + key + " '" + text + "' is not a token", false;
      *out = it->second;
    }
    add_bos = cfg.value("add_bos_token", false) && bos >= 0;
  }
  *meta = {{"tokenizer.kind", "bpe"},
           {"tokenizer.bos_id", std::to_string(bos)},
           {"tokenizer.eos_id", std::to_string(eos)},
           {"tokenizer.add_bos", add_bos ? "1" : "0"},
           {"tokenizer.vocab_size", std::to_string(n_tokens)}};
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
