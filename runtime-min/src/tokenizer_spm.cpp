// SentencePiece tokenizer (BPE and unigram) compiled from a `tokenizer.model` or a GGUF "llama" vocabulary.
//
// Format of the `tokenizer.spm` tensor (little endian), written by compiler/tokenizer/SpmImport.cpp:
//   char   magic[8] = "SGSPM1\0\0"
//   u32    n_pieces           ids are 0..n_pieces-1
//   u32    algorithm          1 = unigram, 2 = BPE (sentencepiece's TrainerSpec.ModelType numbers)
//   u32    unk_id             the one UNKNOWN piece
//   u32    flags              1 byte_fallback, 2 add_dummy_prefix, 4 remove_extra_whitespaces, 8 escape_whitespaces
//   u32    len; u8 unk_surface[len]                  text printed for the unknown piece (" ⁇ ")
//   n_pieces × { u8 type; f32 score; u32 len; u8 piece[len] }
//          type: 1 NORMAL, 2 UNKNOWN, 3 CONTROL, 4 USER_DEFINED, 5 UNUSED, 6 BYTE ("<0xXX>")
//
// Encoding follows sentencepiece 0.1.9x exactly:
// - normalizer without a charsmap: optionally drop leading/trailing/repeated ' ' (remove_extra_whitespaces), prepend
//   "▁" (add_dummy_prefix; not for empty text), ' ' → "▁" (escape_whitespaces), invalid UTF-8 bytes → U+FFFD;
// - BPE (bpe_model.cc): split into characters (USER_DEFINED pieces whole and frozen), repeatedly merge the adjacent
//   pair whose concatenation is a piece with the highest score (leftmost on ties), split merged UNUSED pieces back;
// - unigram (unigram_model.cc EncodeOptimized): Viterbi over all pieces starting at each character, scores summed,
//   USER_DEFINED scored `len·max_score − 0.1`, characters no piece covers get unk with min_score − 10;
// - unknown pieces become their UTF-8 bytes ("<0xXX>") with byte_fallback, else one unk per run of unknowns.
// CONTROL pieces (<s>, </s>) are never produced from text. Decoding: "▁" → ' ', byte pieces → the byte, CONTROL →
// nothing, unk → unk_surface; at the start of the text (prev < 0 or a CONTROL piece such as BOS) the leading
// "▁" of the piece is dropped, as sentencepiece 0.1.9x's decoder does (whatever add_dummy_prefix says).
#include "tokenizer_spm.h"

#include <algorithm>
#include <cfloat>
#include <cstring>

namespace saguaro {
namespace {

constexpr char kMagic[8] = {'S', 'G', 'S', 'P', 'M', '1', '\0', '\0'};
constexpr uint32_t kByteFallback = 1, kAddDummyPrefix = 2, kRemoveExtraWhitespaces = 4, kEscapeWhitespaces = 8;
enum : uint8_t { kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4, kUnused = 5, kByte = 6 };
constexpr char kSpace[] = "\xE2\x96\x81";  // U+2581 "▁"
constexpr float kUnkPenalty = 10.0f;

struct Reader {
  const unsigned char* p;
  uint64_t left;
  bool u32(uint32_t* v) {
    if (left < 4) return false;
    *v = uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
    p += 4, left -= 4;
    return true;
  }
  bool str(std::string* s) {
    uint32_t n;
    if (!u32(&n) || n > left) return false;
    s->assign(reinterpret_cast<const char*>(p), n);
    p += n, left -= n;
    return true;
  }
};

// sentencepiece's OneCharLen: the UTF-8 length announced by the lead byte (1 for stray bytes).
size_t one_char_len(unsigned char c) { return "\1\1\1\1\1\1\1\1\1\1\1\1\2\2\3\4"[c >> 4]; }

// Length of the valid UTF-8 character at s (sentencepiece's DecodeUTF8 rules), 0 when malformed.
size_t valid_utf8_len(std::string_view s) {
  const auto b = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  const auto trail = [&](size_t i) { return (b(i) & 0xC0) == 0x80; };
  const auto ok = [](uint32_t c) { return c < 0xD800 || (c >= 0xE000 && c <= 0x10FFFF); };
  if (b(0) < 0x80) return 1;
  if (s.size() >= 2 && (b(0) & 0xE0) == 0xC0 && trail(1)) {
    const uint32_t c = (b(0) & 0x1Fu) << 6 | (b(1) & 0x3Fu);
    if (c >= 0x80) return 2;
  } else if (s.size() >= 3 && (b(0) & 0xF0) == 0xE0 && trail(1) && trail(2)) {
    const uint32_t c = (b(0) & 0x0Fu) << 12 | (b(1) & 0x3Fu) << 6 | (b(2) & 0x3Fu);
    if (c >= 0x800 && ok(c)) return 3;
  } else if (s.size() >= 4 && (b(0) & 0xF8) == 0xF0 && trail(1) && trail(2) && trail(3)) {
    const uint32_t c = (b(0) & 0x07u) << 18 | (b(1) & 0x3Fu) << 12 | (b(2) & 0x3Fu) << 6 | (b(3) & 0x3Fu);
    if (c >= 0x10000 && ok(c)) return 4;
  }
  return 0;
}

// The byte a "<0xXX>" piece stands for (two uppercase hex digits), -1 for any other string.
int byte_piece_value(const std::string& p) {
  const auto hex = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1; };
  if (p.size() != 6 || p.compare(0, 3, "<0x") != 0 || p[5] != '>' || hex(p[3]) < 0 || hex(p[4]) < 0) return -1;
  return hex(p[3]) * 16 + hex(p[4]);
}

// The bytes sentencepiece prints for a piece: "▁" → ' ' (byte, control and unknown pieces are handled apart).
std::string unescape(std::string_view s) {
  std::string r;
  for (size_t i = 0; i < s.size();) {
    if (s.compare(i, 3, kSpace) == 0) r += ' ', i += 3;
    else r += s[i++];
  }
  return r;
}

}  // namespace

std::unique_ptr<SpmTokenizer> SpmTokenizer::create(const unsigned char* data, uint64_t size, std::string* err) {
  if (size < 28 || std::memcmp(data, kMagic, 8) != 0) return *err = "spm tokenizer: bad magic or truncated", nullptr;
  Reader r{data + 8, size - 8};
  uint32_t n, unk;
  std::unique_ptr<SpmTokenizer> t(new SpmTokenizer());
  std::string unk_surface;
  r.u32(&n), r.u32(&t->algorithm_), r.u32(&unk), r.u32(&t->flags_);
  // Every piece takes at least 10 bytes, which bounds n by the tensor size before anything is allocated.
  if (!r.str(&unk_surface) || n == 0 || n > r.left / 10 || unk >= n || (t->algorithm_ != 1 && t->algorithm_ != 2) ||
      t->flags_ > 15)
    return *err = "spm tokenizer: bad header", nullptr;
  t->unk_id_ = static_cast<int32_t>(unk);
  for (uint32_t id = 0; id < n; ++id) {
    uint32_t bits;
    std::string piece;
    if (r.left < 1) return *err = "spm tokenizer truncated at piece " + std::to_string(id), nullptr;
    const uint8_t type = *r.p;
    ++r.p, --r.left;
    if (!r.u32(&bits) || !r.str(&piece)) return *err = "spm tokenizer truncated at piece " + std::to_string(id), nullptr;
    if (type < kNormal || type > kByte || piece.empty())
      return *err = "spm tokenizer: bad piece " + std::to_string(id), nullptr;
    float score;
    std::memcpy(&score, &bits, 4);
    t->types_.push_back(type);
    t->scores_.push_back(score);
    t->pieces_.push_back(std::move(piece));
  }
  if (r.left != 0) return *err = "spm tokenizer: trailing bytes", nullptr;
  if (t->types_[unk] != kUnknown) return *err = "spm tokenizer: unk_id is not the UNKNOWN piece", nullptr;

  t->min_score_ = FLT_MAX, t->max_score_ = FLT_MIN;  // as unigram_model.cc (FLT_MIN, not -FLT_MAX)
  std::fill(std::begin(t->byte_ids_), std::end(t->byte_ids_), -1);
  for (uint32_t id = 0; id < n; ++id) {
    const std::string& p = t->pieces_[id];
    const uint8_t type = t->types_[id];
    const bool in_vocab = type == kNormal || type == kUserDefined || type == kUnused;
    if (!(in_vocab ? t->vocab_ : t->reserved_).emplace(p, static_cast<int32_t>(id)).second)
      return *err = "spm tokenizer: piece " + std::to_string(id) + " is defined twice", nullptr;
    if (type == kNormal) t->min_score_ = std::min(t->min_score_, t->scores_[id]), t->max_score_ = std::max(t->max_score_, t->scores_[id]);
    if (type == kUserDefined) t->user_defined_.push_back(static_cast<int32_t>(id));
    const int byte = type == kByte ? byte_piece_value(p) : -1;
    if (type == kByte && byte < 0) return *err = "spm tokenizer: bad byte piece " + std::to_string(id), nullptr;
    if (byte >= 0) t->byte_ids_[byte] = static_cast<int32_t>(id);
    if (type == kUserDefined) t->user_first_[static_cast<unsigned char>(p[0])] = true;
    std::string printed = type == kControl ? std::string() : type == kUnknown ? unk_surface
                          : byte >= 0 ? std::string(1, static_cast<char>(byte)) : unescape(p);
    const bool starts_with_space = (type == kNormal || type == kUserDefined || type == kUnused) && p.compare(0, 3, kSpace) == 0;
    t->strip_.push_back(starts_with_space ? 1 : 0);
    t->max_len_ = std::max(t->max_len_, printed.size());
    t->max_piece_ = std::max(t->max_piece_, p.size());
    t->printed_.push_back(std::move(printed));
  }
  if (t->flags_ & kByteFallback)
    for (int b = 0; b < 256; ++b)
      if (t->byte_ids_[b] < 0) return *err = "spm tokenizer: byte_fallback without all 256 byte pieces", nullptr;
  return t;
}

// bpe_model.cc's SymbolPairComparator for its max-heap: the highest score is merged first, then the leftmost.
bool SpmTokenizer::pair_before(const Pair& a, const Pair& b) {
  return a.score < b.score || (a.score == b.score && a.left > b.left);
}

size_t SpmTokenizer::user_defined_prefix(std::string_view s) const {
  size_t best = 0;
  if (s.empty() || !user_first_[static_cast<unsigned char>(s[0])]) return 0;
  for (int32_t id : user_defined_) {
    const std::string& p = pieces_[id];
    if (p.size() > best && s.compare(0, p.size(), p) == 0) best = p.size();
  }
  return best;
}

int32_t SpmTokenizer::piece_to_id(std::string_view s) const {
  auto it = reserved_.find(s);
  if (it != reserved_.end()) return it->second;
  it = vocab_.find(s);
  return it != vocab_.end() ? it->second : unk_id_;
}

void SpmTokenizer::normalize(std::string_view in) {
  const bool remove_extra = flags_ & kRemoveExtraWhitespaces, escape = flags_ & kEscapeWhitespaces;
  norm_.clear();
  // sentencepiece's NormalizePrefix without a charsmap: a user-defined piece, one valid character, or U+FFFD for
  // one malformed byte.
  auto next = [&](size_t pos, size_t* consumed) -> std::string_view {
    const std::string_view rest = in.substr(pos);
    if (const size_t u = user_defined_prefix(rest)) return *consumed = u, rest.substr(0, u);
    const size_t n = valid_utf8_len(rest);
    if (n == 0) return *consumed = 1, std::string_view("\xEF\xBF\xBD", 3);
    return *consumed = n, rest.substr(0, n);
  };
  size_t pos = 0, consumed = 0;
  if (remove_extra)
    while (pos < in.size() && next(pos, &consumed) == " ") pos += consumed;
  if (pos == in.size()) return;
  if (flags_ & kAddDummyPrefix) norm_ += escape ? kSpace : " ";
  bool prev_space = remove_extra;
  while (pos < in.size()) {
    std::string_view sp = next(pos, &consumed);
    while (prev_space && !sp.empty() && sp[0] == ' ') sp.remove_prefix(1);
    if (!sp.empty()) {
      for (char c : sp) {
        if (escape && c == ' ') norm_ += kSpace;
        else norm_ += c;
      }
      prev_space = sp.back() == ' ';
    }
    pos += consumed;
    if (!remove_extra) prev_space = false;
  }
  if (remove_extra) {
    const std::string_view space = escape ? kSpace : " ";
    while (norm_.size() >= space.size() && norm_.compare(norm_.size() - space.size(), space.size(), space) == 0)
      norm_.resize(norm_.size() - space.size());
  }
}

void SpmTokenizer::maybe_add_pair(int32_t left, int32_t right) {
  if (left < 0 || right < 0 || syms_[left].freeze || syms_[right].freeze) return;
  const std::string_view piece(norm_.data() + syms_[left].begin, syms_[left].len + syms_[right].len);
  const auto it = vocab_.find(piece);
  if (it == vocab_.end()) return;
  agenda_.push_back(Pair{scores_[it->second], left, right, static_cast<uint32_t>(piece.size())});
  std::push_heap(agenda_.begin(), agenda_.end(),
                 pair_before);
  if (types_[it->second] == kUnused)
    rev_merge_[piece] = {std::string_view(norm_.data() + syms_[left].begin, syms_[left].len),
                         std::string_view(norm_.data() + syms_[right].begin, syms_[right].len)};
}

void SpmTokenizer::encode_bpe() {
  syms_.clear();
  agenda_.clear();
  rev_merge_.clear();
  const std::string_view s = norm_;
  for (size_t pos = 0; pos < s.size();) {
    const size_t u = user_defined_prefix(s.substr(pos));
    const size_t len = u ? u : std::min(one_char_len(static_cast<unsigned char>(s[pos])), s.size() - pos);
    const int32_t index = static_cast<int32_t>(syms_.size());
    syms_.push_back(Symbol{index - 1, pos + len < s.size() ? index + 1 : -1, static_cast<uint32_t>(pos),
                           static_cast<uint32_t>(len), u > 0});
    pos += len;
  }
  for (size_t i = 1; i < syms_.size(); ++i) maybe_add_pair(static_cast<int32_t>(i - 1), static_cast<int32_t>(i));
  while (!agenda_.empty()) {
    std::pop_heap(agenda_.begin(), agenda_.end(),
                  pair_before);
    const Pair top = agenda_.back();
    agenda_.pop_back();
    Symbol& l = syms_[top.left];
    Symbol& r = syms_[top.right];
    if (l.len == 0 || r.len == 0 || l.len + r.len != top.size) continue;  // stale
    l.len += r.len;
    l.next = r.next;
    if (r.next >= 0) syms_[r.next].prev = top.left;
    r.len = 0;
    maybe_add_pair(l.prev, top.left);
    maybe_add_pair(top.left, l.next);
  }
  for (int32_t i = syms_.empty() ? -1 : 0; i != -1; i = syms_[i].next)
    resegment(std::string_view(norm_.data() + syms_[i].begin, syms_[i].len));
}

void SpmTokenizer::resegment(std::string_view w) {
  const int32_t id = piece_to_id(w);
  const auto it = types_[id] == kUnused ? rev_merge_.find(w) : rev_merge_.end();
  if (it == rev_merge_.end()) return result_.emplace_back(w, id), void();
  resegment(it->second.first);
  resegment(it->second.second);
}

void SpmTokenizer::encode_unigram() {
  const size_t size = norm_.size();
  best_.assign(size + 1, BestPath{-1, 0.0f, -1});
  const float unk_score = min_score_ - kUnkPenalty;
  for (size_t starts_at = 0; starts_at < size;) {
    const float till_here = best_[starts_at].score;
    const size_t mblen = std::min(one_char_len(static_cast<unsigned char>(norm_[starts_at])), size - starts_at);
    bool has_single_node = false;
    const size_t max_end = std::min(size, starts_at + max_piece_);
    for (size_t end = starts_at + 1; end <= max_end; ++end) {
      const auto it = vocab_.find(std::string_view(norm_.data() + starts_at, end - starts_at));
      if (it == vocab_.end() || types_[it->second] == kUnused) continue;
      const size_t length = end - starts_at;
      // The same arithmetic as sentencepiece: a double score (the -0.1 literal), compared against the stored float.
      const double score = types_[it->second] == kUserDefined ? static_cast<float>(length) * max_score_ - 0.1
                                                              : static_cast<double>(scores_[it->second]);
      const double candidate = score + till_here;
      BestPath& target = best_[end];
      if (target.starts_at == -1 || candidate > target.score)
        target = BestPath{it->second, static_cast<float>(candidate), static_cast<int32_t>(starts_at)};
      if (length == mblen) has_single_node = true;
    }
    if (!has_single_node) {
      BestPath& target = best_[starts_at + mblen];
      const float candidate = unk_score + till_here;
      if (target.starts_at == -1 || candidate > target.score)
        target = BestPath{unk_id_, candidate, static_cast<int32_t>(starts_at)};
    }
    starts_at += mblen;
  }
  const size_t first = result_.size();
  for (size_t end = size; end > 0; end = static_cast<size_t>(best_[end].starts_at))
    result_.emplace_back(std::string_view(norm_.data() + best_[end].starts_at, end - best_[end].starts_at), best_[end].id);
  std::reverse(result_.begin() + static_cast<std::ptrdiff_t>(first), result_.end());
}

void SpmTokenizer::emit(std::string_view w, int32_t id, std::vector<int32_t>* out) {
  const bool is_unk = id == unk_id_;
  if (is_unk && (flags_ & kByteFallback)) {
    for (char c : w) out->push_back(byte_ids_[static_cast<unsigned char>(c)]);
  } else if (!(is_unk && prev_unk_)) {
    out->push_back(id);
  }
  prev_unk_ = is_unk;
}

bool SpmTokenizer::encode(std::string_view text, bool add_bos, std::vector<int32_t>* out, std::string* err) {
  (void)err;
  out->clear();
  if (add_bos && bos_id >= 0) out->push_back(bos_id);
  normalize(text);
  result_.clear();
  if (algorithm_ == 2) encode_bpe();
  else encode_unigram();
  prev_unk_ = false;
  for (const auto& r : result_) emit(r.first, r.second, out);
  return true;
}

std::string_view SpmTokenizer::piece(int32_t prev, int32_t token) const {
  if (token < 0 || token >= vocab_size()) return {};
  const std::string_view p = printed_[token];
  const bool at_start = prev < 0 || prev >= vocab_size() || types_[prev] == kControl;
  return at_start ? p.substr(strip_[token]) : p;
}

}  // namespace saguaro
