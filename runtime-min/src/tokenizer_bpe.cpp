// BPE tokenizer compiled from a Hugging Face tokenizer.json: added tokens, normalizer, pre-tokenizer, BPE model,
// post-processor special tokens and decoder, all as tables (no regex engine, no Unicode library at run time).
//
// Format of the `tokenizer.bpe` tensor (little endian; str = u32 length + bytes), written by
// compiler/tokenizer/TokenizerImport.cpp:
//   char   magic[8] = "SGBPE2\0\0"
//   u32    n_tokens            ids are 0..n_tokens-1
//   u32    n_merges
//   i32    unk_id              -1: none (unknown characters are dropped, as HF does)
//   u32    flags               1 byte_fallback, 2 fuse_unk, 4 ignore_merges, 8 byte_level (model symbols are bytes)
//   str    continuing_subword_prefix, str end_of_word_suffix
//   n_tokens × { u8 flags; str text; [str piece] }
//          flags: 1 added, 2 special, 4 lstrip, 8 rstrip, 16 single_word, 32 normalized (matched after the
//          normalizer), 64 a piece follows (decoded bytes differ from text), 128 unreachable (unused id)
//          Byte-level models store their vocab as the raw bytes the ByteLevel alphabet stands for.
//   n_merges × { u32 left; u32 right; u32 result }   rank = position in this list
//   normalizer steps      (unicode/text_normalizer.h)
//   pre-tokenizer steps   (unicode/pre_tokenizer.h)
//   u32 strip_start; str strip_content      decoder: leading copies of the content removed from decoded text
//   u32 n; n × i32 ids; u32 m; m × i32 ids   post-processor: ids before / after the text with special tokens
//   Unicode tables        (unicode/unicode_tables.h)
// Encoding follows HF: split off added tokens (raw ones, then normalized ones after normalizing each stretch),
// pre-tokenize each stretch into words, then per word: the whole word when ignore_merges finds it, else its
// characters (bytes when byte-level; byte fallback or unk for unknown ones), merged lowest rank first (leftmost on
// ties) until no adjacent pair has a merge.
#include "tokenizer_bpe.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "unicode/byte_reader.h"
#include "unicode/utf8.h"

namespace saguaro {
namespace {

constexpr char kMagic[8] = {'S', 'G', 'B', 'P', 'E', '2', '\0', '\0'};
constexpr uint8_t kAdded = 1, kSpecial = 2, kLstripFlag = 4, kRstripFlag = 8, kSingleWordFlag = 16, kNormalized = 32,
                  kHasPiece = 64, kUnreachable = 128;

bool read_ids(ByteReader* r, uint32_t n_tokens, std::vector<int32_t>* ids) {
  uint32_t n, v;
  if (!r->u32(&n) || n > 64) return false;
  ids->clear();
  for (uint32_t i = 0; i < n; ++i) {
    if (!r->u32(&v) || v >= n_tokens) return false;
    ids->push_back(static_cast<int32_t>(v));
  }
  return true;
}

}  // namespace

std::unique_ptr<BpeTokenizer> BpeTokenizer::create(const unsigned char* data, uint64_t size, std::string* err) {
  std::unique_ptr<BpeTokenizer> t(new BpeTokenizer());
  std::string problem;
  if (!t->parse(data, size, &problem)) return *err = "bpe tokenizer: " + problem, nullptr;
  return t;
}

bool BpeTokenizer::parse(const unsigned char* data, uint64_t size, std::string* err) {
  if (size < 8 || std::memcmp(data, kMagic, 8) != 0) return *err = "bad magic or version", false;
  ByteReader r{data + 8, size - 8};
  uint32_t n_tokens, n_merges, unk, flags;
  std::string_view prefix, suffix;
  if (!r.u32(&n_tokens) || !r.u32(&n_merges) || !r.u32(&unk) || !r.u32(&flags) || !r.str(&prefix) || !r.str(&suffix))
    return *err = "truncated header", false;
  unk_id_ = static_cast<int32_t>(unk);
  byte_fallback_ = flags & 1, fuse_unk_ = flags & 2, ignore_merges_ = flags & 4, byte_level_ = flags & 8;
  prefix_ = prefix, suffix_ = suffix;
  if (n_tokens == 0 || n_tokens > (1u << 24) || unk_id_ < -1 || unk_id_ >= static_cast<int32_t>(n_tokens))
    return *err = "bad header", false;
  for (uint32_t id = 0; id < n_tokens; ++id) {
    uint8_t f;
    std::string_view text, piece;
    if (!r.u8(&f) || !r.str(&text) || ((f & kHasPiece) && !r.str(&piece)))
      return *err = "truncated at token " + std::to_string(id), false;
    if (!(f & kHasPiece)) piece = text;
    Tok tok{static_cast<uint32_t>(arena_.size()), static_cast<uint32_t>(text.size()), 0,
            static_cast<uint32_t>(piece.size()), f};
    arena_ += text;
    tok.piece_off = static_cast<uint32_t>(arena_.size());
    if (f & kHasPiece) arena_ += piece; else tok.piece_off = tok.text_off;
    toks_.push_back(tok);
  }
  merges_.reserve(n_merges);
  for (uint32_t i = 0; i < n_merges; ++i) {
    uint32_t a, b, c;
    if (!r.u32(&a) || !r.u32(&b) || !r.u32(&c)) return *err = "truncated in merges", false;
    if (a >= n_tokens || b >= n_tokens || c >= n_tokens) return *err = "merge id out of range", false;
    merges_.emplace(uint64_t(a) << 32 | b, Merge{i, static_cast<int32_t>(c)});
  }
  std::string_view strip;
  if (!normalizer_.parse(&r, err) || !pre_tokenizer_.parse(&r, err)) return false;
  if (!r.u32(&strip_start_) || !r.str(&strip) || (strip_start_ && strip.empty())) return *err = "bad decoder", false;
  strip_content_ = strip;
  if (!read_ids(&r, n_tokens, &post_prefix_) || !read_ids(&r, n_tokens, &post_suffix_))
    return *err = "bad post-processor ids", false;
  if (!unicode_.parse(&r, err)) return false;
  if (r.left != 0) return *err = "trailing bytes", false;
  bool added_need_classes = false;
  for (const Tok& t : toks_) added_need_classes |= (t.flags & kAdded) && (t.flags & (kLstripFlag | kRstripFlag | kSingleWordFlag));
  if (normalizer_.needs_normalization() && !unicode_.has_normalization())
    return *err = "normalizer needs the normalization tables, which are missing", false;
  if ((normalizer_.needs_classes() || pre_tokenizer_.needs_classes() || added_need_classes) && !unicode_.has_classes())
    return *err = "pre-tokenizer needs the character class tables, which are missing", false;

  for (uint32_t id = 0; id < n_tokens; ++id) {
    const uint8_t f = toks_[id].flags;
    if (!(f & (kAdded | kUnreachable)) && toks_[id].text_len) sorted_.push_back(static_cast<int32_t>(id));
    if (!(f & kSpecial)) max_len_ = std::max<size_t>(max_len_, toks_[id].piece_len);
  }
  std::sort(sorted_.begin(), sorted_.end(), [&](int32_t a, int32_t b) { return text(a) < text(b); });
  for (size_t i = 1; i < sorted_.size(); ++i)
    if (text(sorted_[i - 1]) == text(sorted_[i])) return *err = "duplicate vocab entry", false;
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    byte_ids_[b] = lookup(name);
    const char c = static_cast<char>(b);
    byte_sym_[b] = lookup(std::string_view(&c, 1));
  }
  for (uint32_t id = 0; id < n_tokens; ++id) {
    const uint8_t f = toks_[id].flags;
    if (!(f & kAdded) || (f & kUnreachable)) continue;
    const uint8_t mflags = ((f & kLstripFlag) ? kLstrip : 0) | ((f & kRstripFlag) ? kRstrip : 0) |
                           ((f & kSingleWordFlag) ? kSingleWord : 0);
    if (f & kNormalized) {
      normalizer_.apply(unicode_, text(id), &normalized_);
      normalized_added_.add(static_cast<int32_t>(id), normalized_, mflags);
    } else {
      raw_added_.add(static_cast<int32_t>(id), std::string(text(id)), mflags);
    }
  }
  syms_.reserve(4096), heap_.reserve(4096);
  return true;
}

int32_t BpeTokenizer::lookup(std::string_view s) const {
  auto it = std::lower_bound(sorted_.begin(), sorted_.end(), s, [&](int32_t id, std::string_view k) { return text(id) < k; });
  return (it != sorted_.end() && text(*it) == s) ? *it : -1;
}

void BpeTokenizer::initial_symbols(std::string_view w) {
  syms_.clear();
  const bool plain = prefix_.empty() && suffix_.empty();
  for (size_t i = 0, n; i < w.size(); i += n) {
    n = 1;
    if (!byte_level_) utf8::decode(w, i, &n);
    int32_t id;
    if (byte_level_ && plain) {
      id = byte_sym_[static_cast<unsigned char>(w[i])];
    } else {
      key_.clear();
      if (i) key_ = prefix_;
      key_.append(w.data() + i, n);
      if (i + n == w.size()) key_ += suffix_;
      id = lookup(key_);
    }
    if (id >= 0) {
      syms_.push_back({id, 0, 0});
      continue;
    }
    bool all_bytes = byte_fallback_;
    for (size_t k = 0; k < n && all_bytes; ++k) all_bytes = byte_ids_[static_cast<unsigned char>(w[i + k])] >= 0;
    if (all_bytes) {
      for (size_t k = 0; k < n; ++k) syms_.push_back({byte_ids_[static_cast<unsigned char>(w[i + k])], 0, 0});
    } else if (unk_id_ >= 0 && !(fuse_unk_ && !syms_.empty() && syms_.back().id == unk_id_)) {
      syms_.push_back({unk_id_, 0, 0});
    }
  }
  for (size_t i = 0; i < syms_.size(); ++i) {
    syms_[i].prev = static_cast<int32_t>(i) - 1;
    syms_[i].next = i + 1 < syms_.size() ? static_cast<int32_t>(i) + 1 : -1;
  }
}

void BpeTokenizer::merge_symbols() {
  auto find = [&](int32_t left) -> const Merge* {
    const int32_t right = syms_[left].next;
    if (right < 0) return nullptr;
    auto it = merges_.find(uint64_t(static_cast<uint32_t>(syms_[left].id)) << 32 | static_cast<uint32_t>(syms_[right].id));
    return it == merges_.end() ? nullptr : &it->second;
  };
  // Heap order: lowest rank first, then leftmost.
  const auto after = [](const Cand& a, const Cand& b) { return a.rank != b.rank ? a.rank > b.rank : a.pos > b.pos; };
  auto push = [&](int32_t left) {
    if (const Merge* m = find(left)) {
      heap_.push_back({m->rank, left, m->result});
      std::push_heap(heap_.begin(), heap_.end(), after);
    }
  };
  heap_.clear();
  for (size_t i = 0; i + 1 < syms_.size(); ++i) push(static_cast<int32_t>(i));
  while (!heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), after);
    const Cand c = heap_.back();
    heap_.pop_back();
    if (syms_[c.pos].id < 0) continue;
    const Merge* m = find(c.pos);
    if (!m || m->rank != c.rank) continue;  // stale: a neighbour changed since this pair was queued
    Sym& s = syms_[c.pos];
    const int32_t right = s.next;
    s.id = c.result;
    s.next = syms_[right].next;
    if (s.next >= 0) syms_[s.next].prev = c.pos;
    syms_[right].id = -1;
    if (s.prev >= 0) push(s.prev);
    push(c.pos);
  }
}

void BpeTokenizer::encode_word(std::string_view w, std::vector<int32_t>* out) {
  if (ignore_merges_) {
    const int32_t whole = lookup(w);
    if (whole >= 0) return out->push_back(whole);
  }
  initial_symbols(w);
  if (syms_.size() > 1) merge_symbols();
  for (const Sym& s : syms_)
    if (s.id >= 0) out->push_back(s.id);
}

void BpeTokenizer::encode_text(std::string_view s, bool at_start, std::vector<int32_t>* out) {
  normalizer_.apply(unicode_, s, &normalized_);
  normalized_added_.split(unicode_, normalized_, &inner_parts_);
  for (const AddedTokenMatcher::Part& p : inner_parts_) {
    if (p.id >= 0) {
      out->push_back(p.id);
      continue;
    }
    pre_tokenizer_.run(unicode_, std::string_view(normalized_).substr(p.begin, p.end - p.begin), at_start && p.begin == 0,
                       &words_);
    for (std::string_view w : words_) encode_word(w, out);
  }
}

bool BpeTokenizer::encode(std::string_view text, bool add_bos, std::vector<int32_t>* out, std::string* err) {
  (void)err;
  out->clear();
  if (add_bos) out->insert(out->end(), post_prefix_.begin(), post_prefix_.end());
  raw_added_.split(unicode_, text, &parts_);
  for (const AddedTokenMatcher::Part& p : parts_) {
    if (p.id >= 0) out->push_back(p.id);
    else encode_text(text.substr(p.begin, p.end - p.begin), p.begin == 0, out);
  }
  if (add_bos) out->insert(out->end(), post_suffix_.begin(), post_suffix_.end());
  return true;
}

std::string_view BpeTokenizer::piece(int32_t prev, int32_t token) const {
  if (token < 0 || token >= vocab_size() || (toks_[token].flags & kSpecial)) return {};
  std::string_view p = raw_piece(token);
  if (prev < 0 || prev == bos_id)
    for (uint32_t k = 0; k < strip_start_ && p.substr(0, strip_content_.size()) == strip_content_; ++k)
      p.remove_prefix(strip_content_.size());
  return p;
}

bool BpeTokenizer::decode(const std::vector<int32_t>& ids, bool skip_special, std::string* out, std::string* err) const {
  out->clear();
  for (int32_t id : ids) {
    if (id < 0 || id >= vocab_size()) return *err = "token id " + std::to_string(id) + " out of range", false;
    if (!(skip_special && (toks_[id].flags & kSpecial))) *out += raw_piece(id);
  }
  size_t cut = 0;
  for (uint32_t k = 0; k < strip_start_ && out->compare(cut, strip_content_.size(), strip_content_) == 0; ++k)
    cut += strip_content_.size();
  out->erase(0, cut);
  return true;
}

}  // namespace saguaro
