// Pre-tokenizer steps. Each step maps the current list of pieces to a new one: it finds segments (matches and
// the gaps between them) in each piece and joins them per the split behavior, as Hugging Face's split() does.
#include "unicode/pre_tokenizer.h"

#include "unicode/utf8.h"

namespace saguaro {

bool PreTokenizer::parse(ByteReader* r, std::string* err) {
  uint32_t n;
  if (!r->u32(&n) || n > 1024) return *err = "pre_tokenizer: bad step count", false;
  ops_.clear();
  for (uint32_t i = 0; i < n; ++i) {
    uint8_t kind;
    std::string_view s;
    Op op;
    if (!r->u8(&kind)) return *err = "pre_tokenizer truncated", false;
    op.kind = static_cast<PreTokenizerOp>(kind);
    bool ok = true;
    switch (op.kind) {
      case PreTokenizerOp::SplitPattern:
        ok = r->u8(&op.a) && r->u8(&op.b) && r->u8(&op.c) && op.a >= 1 && op.a <= 3 && op.b <= 4;
        break;
      case PreTokenizerOp::SplitString:
        ok = r->str(&s) && !s.empty() && r->u8(&op.b) && r->u8(&op.c) && op.b <= 4;
        op.s = s;
        break;
      case PreTokenizerOp::ByteLevel: ok = r->u8(&op.a) && r->u8(&op.b) && i + 1 == n; break;
      case PreTokenizerOp::Digits: ok = r->u8(&op.a); break;
      case PreTokenizerOp::Metaspace:
        ok = r->str(&s) && !s.empty() && r->u8(&op.a) && r->u8(&op.b) && op.a <= 2;
        op.s = s;
        break;
      default: return *err = "pre_tokenizer: unknown step " + std::to_string(kind), false;
    }
    if (!ok) return *err = "pre_tokenizer: bad step " + std::to_string(kind), false;
    ops_.push_back(std::move(op));
  }
  return true;
}

bool PreTokenizer::needs_classes() const {
  for (const Op& op : ops_)
    if (op.kind == PreTokenizerOp::SplitPattern || op.kind == PreTokenizerOp::Digits ||
        (op.kind == PreTokenizerOp::ByteLevel && op.b))
      return true;
  return false;
}

// Fills segs_ with the matches of `op` in `text` and the gaps between them, in order, none empty.
void PreTokenizer::find_segments(const Op& op, const UnicodeTables& t, std::string_view text) {
  segs_.clear();
  auto add = [&](size_t b, size_t e, bool match) {
    if (b == e) return;
    if (!match && !segs_.empty() && !segs_.back().match) return (void)(segs_.back().end = static_cast<uint32_t>(e));
    segs_.push_back({static_cast<uint32_t>(b), static_cast<uint32_t>(e), match});
  };
  if (op.kind == PreTokenizerOp::SplitString || op.kind == PreTokenizerOp::Metaspace) {
    size_t i = 0;
    for (size_t k; (k = text.find(op.s, i)) != std::string_view::npos; i = k + op.s.size()) {
      add(i, k, false);
      add(k, k + op.s.size(), true);
    }
    return add(i, text.size(), false);
  }
  cps_.clear(), cls_.clear(), offs_.clear();
  for (size_t i = 0, n; i < text.size(); i += n) {
    cps_.push_back(utf8::decode(text, i, &n));
    cls_.push_back(t.classes(cps_.back()));
    offs_.push_back(static_cast<uint32_t>(i));
  }
  offs_.push_back(static_cast<uint32_t>(text.size()));
  const size_t n = cps_.size();
  for (size_t i = 0; i < n;) {
    size_t e = i;
    if (op.kind == PreTokenizerOp::Digits) {
      e = (cls_[i] & kClassNumber) ? i + 1 : i;
    } else {
      const auto p = op.kind == PreTokenizerOp::ByteLevel ? SplitPattern::Gpt2 : static_cast<SplitPattern>(op.a);
      e = match_split_pattern(p, cps_.data(), cls_.data(), n, i);
    }
    add(offs_[i], offs_[e == i ? i + 1 : e], e != i);
    i = e == i ? i + 1 : e;
  }
}

// Appends the pieces that segs_ yields over `text` under `how` to the next buffer.
void PreTokenizer::emit(std::string_view text, bool at_start, SplitBehavior how, bool invert) {
  const int nxt = 1 - cur_;
  std::vector<Span>& out = spans_[nxt];
  const size_t first = out.size();
  const uint32_t base = static_cast<uint32_t>(buf_[nxt].size());
  buf_[nxt].append(text.data(), text.size());
  bool prev_match = false;
  for (Seg s : segs_) {
    s.match = s.match != invert;
    const Span sp{base + s.begin, base + s.end, false};
    const bool has_last = out.size() > first;
    switch (how) {
      case SplitBehavior::Removed:
        if (!s.match) out.push_back(sp);
        break;
      case SplitBehavior::Isolated: out.push_back(sp); break;
      case SplitBehavior::MergedWithPrevious:
        if (s.match && !prev_match && has_last) out.back().end = sp.end;
        else out.push_back(sp);
        break;
      case SplitBehavior::MergedWithNext:
        if (!s.match && prev_match && has_last) out.back().end = sp.end;
        else out.push_back(sp);
        break;
      case SplitBehavior::Contiguous:
        if (s.match == prev_match && has_last) out.back().end = sp.end;
        else out.push_back(sp);
        break;
    }
    prev_match = s.match;
  }
  if (out.size() > first && out[first].begin == base) out[first].at_start = at_start;
}

void PreTokenizer::run(const UnicodeTables& t, std::string_view text, bool at_start,
                       std::vector<std::string_view>* words) {
  cur_ = 0;
  buf_[0].assign(text.data(), text.size());
  spans_[0].assign(1, Span{0, static_cast<uint32_t>(text.size()), at_start});
  for (const Op& op : ops_) {
    const int nxt = 1 - cur_;
    buf_[nxt].clear(), spans_[nxt].clear();
    for (const Span& sp : spans_[cur_]) {
      std::string_view piece(buf_[cur_].data() + sp.begin, sp.end - sp.begin);
      SplitBehavior how = static_cast<SplitBehavior>(op.b);
      bool invert = op.c;
      if (op.kind == PreTokenizerOp::ByteLevel) {
        if (op.a && (piece.empty() || piece[0] != ' ')) {
          tmp_.assign(1, ' ');
          piece = (tmp_ += piece);
        }
        how = SplitBehavior::Isolated, invert = false;
        if (!op.b) {
          segs_.assign(1, Seg{0, static_cast<uint32_t>(piece.size()), false});
          emit(piece, sp.at_start, how, invert);
          continue;
        }
      } else if (op.kind == PreTokenizerOp::Digits) {
        how = op.a ? SplitBehavior::Isolated : SplitBehavior::Contiguous, invert = false;
      } else if (op.kind == PreTokenizerOp::Metaspace) {
        tmp_.clear();
        const bool starts = piece.substr(0, op.s.size()) == op.s || piece.substr(0, 1) == " ";
        if (!starts && (op.a == 0 || (op.a == 1 && sp.at_start))) tmp_ = op.s;
        for (char c : piece) c == ' ' ? (void)(tmp_ += op.s) : tmp_.push_back(c);
        piece = tmp_;
        how = SplitBehavior::MergedWithNext, invert = false;
        if (!op.b) {
          segs_.assign(1, Seg{0, static_cast<uint32_t>(piece.size()), false});
          emit(piece, sp.at_start, how, invert);
          continue;
        }
      }
      find_segments(op, t, piece);
      emit(piece, sp.at_start, how, invert);
    }
    cur_ = nxt;
  }
  words->clear();
  for (const Span& sp : spans_[cur_])
    if (sp.end > sp.begin) words->emplace_back(buf_[cur_].data() + sp.begin, sp.end - sp.begin);
}

}  // namespace saguaro
