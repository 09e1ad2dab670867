// BPE tokenizer compiled from a Hugging Face tokenizer.json (BPE model, no normalizer, no pre-tokenizer).
//
// Format of the `tokenizer.bpe` tensor (little endian), written by compiler/tokenizer/TokenizerImport.cpp:
//   char   magic[8] = "SGBPE1\0\0"
//   u32    n_tokens            ids are 0..n_tokens-1
//   u32    n_merges
//   i32    unk_id              -1: none (unknown characters are dropped, as HF does)
//   u32    flags               1 = byte_fallback, 2 = fuse_unk, 4 = ignore_merges
//   n_tokens × { u8 kind; u32 len; u8 bytes[len] }   kind: 0 model vocab, 1 added, 3 added+special, 255 unused id
//   n_merges × { u32 left; u32 right; u32 result }   rank = position in this list
// Encoding: added tokens are matched first (leftmost, then longest); each stretch between them is split into
// UTF-8 characters (unknown ones → byte-fallback "<0xXX>" tokens or unk), then the pair with the lowest merge
// rank is merged (leftmost first) until no pair has a merge.
#include "tokenizer_bpe.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace saguaro {
namespace {

constexpr char kMagic[8] = {'S', 'G', 'B', 'P', 'E', '1', '\0', '\0'};
constexpr uint8_t kAdded = 1, kSpecial = 2, kUnused = 255;

struct Reader {
  const unsigned char* p;
  uint64_t left;
  bool u32(uint32_t* v) {
    if (left < 4) return false;
    *v = uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
    p += 4, left -= 4;
    return true;
  }
};

size_t utf8_len(unsigned char c) {
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) return 2;
  if ((c & 0xF0) == 0xE0) return 3;
  if ((c & 0xF8) == 0xF0) return 4;
  return 1;  // stray continuation or invalid byte: one byte on its own
}

}  // namespace

std::unique_ptr<BpeTokenizer> BpeTokenizer::create(const unsigned char* data, uint64_t size, std::string* err) {
  if (size < 24 || std::memcmp(data, kMagic, 8) != 0) return *err = "bpe tokenizer: bad magic or truncated", nullptr;
  Reader r{data + 8, size - 8};
  uint32_t n_tokens, n_merges, unk, flags;
  r.u32(&n_tokens), r.u32(&n_merges), r.u32(&unk), r.u32(&flags);
  std::unique_ptr<BpeTokenizer> t(new BpeTokenizer());
  t->unk_id_ = static_cast<int32_t>(unk);
  t->byte_fallback_ = flags & 1, t->fuse_unk_ = flags & 2, t->ignore_merges_ = flags & 4;
  if (n_tokens == 0 || n_tokens > (1u << 24) || (t->unk_id_ < -1 || t->unk_id_ >= static_cast<int32_t>(n_tokens)))
    return *err = "bpe tokenizer: bad header", nullptr;
  for (uint32_t id = 0; id < n_tokens; ++id) {
    uint32_t len;
    if (r.left < 1) return *err = "bpe tokenizer truncated at token " + std::to_string(id), nullptr;
    const uint8_t kind = *r.p;
    ++r.p, --r.left;
    if (!r.u32(&len) || len > r.left) return *err = "bpe tokenizer truncated at token " + std::to_string(id), nullptr;
    t->tokens_.emplace_back(reinterpret_cast<const char*>(r.p), len);
    t->flags_.push_back(kind == kUnused ? 0 : kind);
    r.p += len, r.left -= len;
    if (kind & kAdded && kind != kUnused) t->added_.push_back(static_cast<int32_t>(id));
  }
  for (uint32_t i = 0; i < n_merges; ++i) {
    uint32_t a, b, c;
    if (!r.u32(&a) || !r.u32(&b) || !r.u32(&c)) return *err = "bpe tokenizer truncated in merges", nullptr;
    if (a >= n_tokens || b >= n_tokens || c >= n_tokens) return *err = "bpe tokenizer: merge id out of range", nullptr;
    t->merges_.emplace(uint64_t(a) << 32 | b, std::make_pair(i, static_cast<int32_t>(c)));
  }
  if (r.left != 0) return *err = "bpe tokenizer: trailing bytes", nullptr;

  for (uint32_t id = 0; id < n_tokens; ++id)
    if (t->flags_[id] == 0 && !t->tokens_[id].empty()) t->sorted_.emplace_back(t->tokens_[id], id);
  std::sort(t->sorted_.begin(), t->sorted_.end());
  std::sort(t->added_.begin(), t->added_.end(),  // longest first, so the first match is the longest
            [&](int32_t a, int32_t b) { return t->tokens_[a].size() > t->tokens_[b].size(); });
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    t->byte_ids_[b] = t->lookup(name);
  }
  for (uint32_t id = 0; id < n_tokens; ++id) {
    std::string p = (t->flags_[id] & kSpecial) ? std::string() : t->tokens_[id];
    for (int b = 0; t->byte_fallback_ && b < 256; ++b)
      if (t->byte_ids_[b] == static_cast<int32_t>(id)) p.assign(1, static_cast<char>(b));
    t->max_len_ = std::max(t->max_len_, p.size());
    t->pieces_.push_back(std::move(p));
  }
  t->syms_.reserve(4096);
  return t;
}

int32_t BpeTokenizer::lookup(std::string_view s) const {
  auto it = std::lower_bound(sorted_.begin(), sorted_.end(), s,
                             [](const std::pair<std::string_view, int32_t>& e, std::string_view k) { return e.first < k; });
  return (it != sorted_.end() && it->first == s) ? it->second : -1;
}

void BpeTokenizer::encode_segment(std::string_view s, std::vector<int32_t>* out) {
  if (s.empty()) return;
  if (ignore_merges_) {
    const int32_t whole = lookup(s);
    if (whole >= 0) return out->push_back(whole);
  }
  syms_.clear();
  for (size_t i = 0; i < s.size();) {
    const size_t n = std::min(utf8_len(static_cast<unsigned char>(s[i])), s.size() - i);
    const int32_t id = lookup(s.substr(i, n));
    if (id >= 0) {
      syms_.push_back(id);
    } else {
      bool all_bytes = byte_fallback_;
      for (size_t k = 0; k < n && all_bytes; ++k) all_bytes = byte_ids_[static_cast<unsigned char>(s[i + k])] >= 0;
      if (all_bytes) {
        for (size_t k = 0; k < n; ++k) syms_.push_back(byte_ids_[static_cast<unsigned char>(s[i + k])]);
      } else if (unk_id_ >= 0 && !(fuse_unk_ && !syms_.empty() && syms_.back() == unk_id_)) {
        syms_.push_back(unk_id_);
      }
    }
    i += n;
  }
  while (syms_.size() > 1) {
    uint32_t best_rank = UINT32_MAX;
    size_t best = 0;
    int32_t result = -1;
    for (size_t i = 0; i + 1 < syms_.size(); ++i) {
      auto it = merges_.find(uint64_t(static_cast<uint32_t>(syms_[i])) << 32 | static_cast<uint32_t>(syms_[i + 1]));
      if (it != merges_.end() && it->second.first < best_rank) best_rank = it->second.first, best = i, result = it->second.second;
    }
    if (result < 0) break;
    syms_[best] = result;
    syms_.erase(syms_.begin() + static_cast<std::ptrdiff_t>(best) + 1);
  }
  out->insert(out->end(), syms_.begin(), syms_.end());
}

bool BpeTokenizer::encode(std::string_view text, bool add_bos, std::vector<int32_t>* out, std::string* err) {
  (void)err;
  out->clear();
  if (add_bos && bos_id >= 0) out->push_back(bos_id);
  size_t seg = 0;
  for (size_t pos = 0; pos < text.size();) {
    int32_t match = -1;
    for (int32_t id : added_) {
      const std::string& a = tokens_[id];
      if (!a.empty() && text.compare(pos, a.size(), a) == 0) {
        match = id;
        break;
      }
    }
    if (match < 0) {
      ++pos;
      continue;
    }
    encode_segment(text.substr(seg, pos - seg), out);
    out->push_back(match);
    pos += tokens_[match].size();
    seg = pos;
  }
  encode_segment(text.substr(seg), out);
  return true;
}

std::string_view BpeTokenizer::piece(int32_t prev, int32_t token) const {
  (void)prev;
  if (token < 0 || token >= vocab_size()) return {};
  return pieces_[token];
}

}  // namespace saguaro
