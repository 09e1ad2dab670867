// JsonMatcher: the compact JSON grammar of a compiled schema, one byte at a time. consume() leaves the stack it is
// given as it found it, so alternatives are tried on one buffer without copies.
#include "json_grammar_matcher.h"

#include <algorithm>
#include <cstring>

namespace saguaro {
namespace {

enum Phase : uint8_t {
  kStart,       // a value of `node` (possibly kAnyOf) not begun
  kFresh,       // a value of the concrete `node` not begun
  kObjOpen,     // after '{'
  kObjKey,      // after ',': a key must follow
  kObjColon,    // the key of property b (-1: undeclared) read: ':' next
  kObjNext,     // after a property's value: ',' or '}'; a = the next declared property
  kArrOpen,     // after '['
  kArrItem,     // after ',': an item must follow; a = items so far
  kArrNext,     // after an item: ',' or ']'
  kStr,         // inside a string
  kStrEscape,   // after '\'
  kStrHex,      // inside \uXXXX; c = hex digits read
  kNum,         // a number; a = the state of its automaton
  kLit,         // one of the literals [a, b) of which c bytes matched
};

// The number automaton: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]{1,2})?; integers stop before '.'/'e'.
enum NumState : int32_t { kNumStart, kNumMinus, kNumZero, kNumInt, kNumDot, kNumFrac, kNumE, kNumESign, kNumExp };

bool num_complete(int32_t s) { return s == kNumZero || s == kNumInt || s == kNumFrac || s == kNumExp; }

int32_t num_next(int32_t s, uint8_t c, bool integer) {
  const bool digit = c >= '0' && c <= '9';
  switch (s) {
    case kNumStart:
      if (c == '-') return kNumMinus;
      [[fallthrough]];
    case kNumMinus:
      return c == '0' ? kNumZero : digit ? kNumInt : -1;
    case kNumInt:
      if (digit) return kNumInt;
      [[fallthrough]];
    case kNumZero:
      if (integer) return -1;
      return c == '.' ? kNumDot : (c == 'e' || c == 'E') ? kNumE : -1;
    case kNumDot:
      return digit ? kNumFrac : -1;
    case kNumFrac:
      return digit ? kNumFrac : (!integer && (c == 'e' || c == 'E')) ? kNumE : -1;
    case kNumE:
      if (c == '+' || c == '-') return kNumESign;
      [[fallthrough]];
    case kNumESign:
    case kNumExp:
      return digit ? kNumExp : -1;
  }
  return -1;
}

bool is_hex(uint8_t c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// Frames compare as bytes (they are plain data). Empty stacks are equal without memcmp: an empty vector's data()
// may be null, which memcmp must not be given even for zero bytes.
bool same_frames(const JsonFrame* a, const JsonFrame* b, size_t n) {
  return n == 0 || std::memcmp(a, b, n * sizeof(JsonFrame)) == 0;
}

}  // namespace

bool JsonParseState::operator==(const JsonParseState& o) const {
  return ends == o.ends && frames.size() == o.frames.size() && same_frames(frames.data(), o.frames.data(), frames.size());
}

void JsonMatcher::start(JsonParseState* s) const {
  s->clear();
  JsonFrame f;
  f.node = g_.root;
  f.phase = kStart;
  s->frames.push_back(f);
  s->ends.push_back(1);
}

void JsonMatcher::emit(const Stack& s, JsonParseState* out) const {
  // Drop a stack equal to one already there: readings that agree from here on are one reading.
  uint32_t begin = 0;
  for (uint32_t end : out->ends) {
    if (end - begin == s.size() && same_frames(out->frames.data() + begin, s.data(), s.size()))
      return;
    begin = end;
  }
  out->frames.insert(out->frames.end(), s.begin(), s.end());
  out->ends.push_back(static_cast<uint32_t>(out->frames.size()));
}

void JsonMatcher::step(const JsonParseState& in, uint8_t c, JsonParseState* out) const {
  out->clear();
  uint32_t begin = 0;
  for (uint32_t end : in.ends) {
    work_.assign(in.frames.begin() + begin, in.frames.begin() + end);
    consume(work_, c, out);
    begin = end;
  }
}

bool JsonMatcher::ends_implicitly(const JsonFrame& f) const {
  if (f.phase == kNum) return num_complete(f.a);
  if (f.phase == kLit) return g_.nodes[f.node].literals[f.a].size() == static_cast<size_t>(f.c);
  return false;
}

void JsonMatcher::consume(Stack& s, uint8_t c, JsonParseState* out) const {
  if (s.empty()) return;  // the value is complete: nothing may follow
  const size_t depth = s.size();
  const JsonFrame saved = s.back();
  auto restore = [&] {
    s.resize(depth);
    s.back() = saved;
  };
  auto push = [&](int32_t node, uint8_t phase) {
    JsonFrame f;
    f.node = node, f.phase = phase;
    s.push_back(f);
  };
  JsonFrame& f = s.back();
  const JsonNode& n = g_.nodes[f.node];
  switch (saved.phase) {
    case kStart: {
      int32_t count;
      const int32_t* alts = g_.starts(saved.node, &count);
      for (int32_t i = 0; i < count; ++i) {
        s.back().node = alts[i], s.back().phase = kFresh;
        begin(s, c, out);
        restore();
      }
      return;
    }
    case kFresh:
      begin(s, c, out);
      break;
    case kObjOpen:
    case kObjKey:
    case kObjNext: {
      const bool declared = !n.props.empty();
      if (saved.phase == kObjNext) {
        if (c == ',' && (!declared || saved.a < static_cast<int32_t>(n.props.size()))) f.phase = kObjKey, emit(s, out);
        if (c == '}' && (!declared || n.required_count_from[saved.a] == 0)) s.pop_back(), emit(s, out);
        break;
      }
      if (c == '}' && saved.phase == kObjOpen && (declared ? n.required_count_from[0] == 0 : true))
        s.pop_back(), emit(s, out), restore();
      if (c != '"') break;
      if (!declared) {
        if (n.additional < 0) break;
        f.phase = kObjColon, f.b = -1;
        push(g_.any_string, kStr);
        emit(s, out);
        break;
      }
      // The key of any declared property from a on, up to the first required one.
      for (int32_t j = saved.a; j < static_cast<int32_t>(n.props.size()); ++j) {
        s.back().phase = kObjColon, s.back().b = j;
        push(n.props[j].key, kLit);
        s.back().a = 0, s.back().b = 1, s.back().c = 1;
        emit(s, out);
        restore();
        if (n.props[j].required) break;
      }
      break;
    }
    case kObjColon:
      if (c != ':') break;
      f.phase = kObjNext;
      if (saved.b >= 0) f.a = saved.b + 1;
      push(saved.b >= 0 ? n.props[saved.b].value : n.additional, kStart);
      emit(s, out);
      break;
    case kArrOpen:
      if (c == ']' && n.min_items == 0) s.pop_back(), emit(s, out), restore();
      if (c == ']' || n.max_items == 0) break;
      [[fallthrough]];
    case kArrItem:
      s.back().phase = kArrNext, s.back().a = saved.phase == kArrOpen ? 1 : saved.a + 1;
      push(n.items, kStart);
      consume(s, c, out);
      break;
    case kArrNext:
      if (c == ',' && (n.max_items < 0 || saved.a < n.max_items)) f.phase = kArrItem, emit(s, out);
      if (c == ']' && saved.a >= n.min_items) s.resize(depth), s.pop_back(), emit(s, out);
      break;
    case kStr:
    case kStrEscape:
    case kStrHex:
      string_byte(s, c, out);
      break;
    case kNum: {
      const int32_t next = num_next(saved.a, c, n.kind == JsonNodeKind::kInteger);
      // At most two exponent digits (b counts them): a larger one overflows a double, and parsers disagree.
      const int32_t exp_digits = next == kNumExp ? (saved.a == kNumExp ? saved.b + 1 : 1) : 0;
      if (next >= 0 && exp_digits <= 2) f.a = next, f.b = exp_digits, emit(s, out), restore();
      if (num_complete(saved.a)) s.pop_back(), consume(s, c, out);
      break;
    }
    case kLit: {
      const std::vector<std::string>& lits = n.literals;
      const size_t pos = static_cast<size_t>(saved.c);
      // The candidates share their first pos bytes and are sorted: those going on with c are a range.
      int32_t lo = saved.a, hi = saved.b;
      while (lo < hi && (lits[lo].size() <= pos || static_cast<uint8_t>(lits[lo][pos]) < c)) ++lo;
      int32_t end = lo;
      while (end < hi && lits[end].size() > pos && static_cast<uint8_t>(lits[end][pos]) == c) ++end;
      if (end > lo) f.a = lo, f.b = end, f.c = saved.c + 1, emit(s, out), restore();
      if (ends_implicitly(saved)) s.pop_back(), consume(s, c, out);
      break;
    }
  }
  restore();
}

// The first byte of a value of the concrete node on top.
void JsonMatcher::begin(Stack& s, uint8_t c, JsonParseState* out) const {
  JsonFrame& f = s.back();
  const JsonNode& n = g_.nodes[f.node];
  switch (n.kind) {
    case JsonNodeKind::kObject:
      if (c == '{') f.phase = kObjOpen, f.a = 0, emit(s, out);
      return;
    case JsonNodeKind::kArray:
      if (c == '[') f.phase = kArrOpen, f.a = 0, emit(s, out);
      return;
    case JsonNodeKind::kString:
      if (c == '"') f.phase = kStr, f.a = 0, emit(s, out);
      return;
    case JsonNodeKind::kNumber:
    case JsonNodeKind::kInteger:
      f.phase = kNum, f.a = kNumStart;
      consume(s, c, out);
      return;
    case JsonNodeKind::kLiterals:
      f.phase = kLit, f.a = 0, f.b = static_cast<int32_t>(n.literals.size()), f.c = 0;
      consume(s, c, out);
      return;
    case JsonNodeKind::kAnyOf:
      return;  // never: alternatives are concrete
  }
}

// A byte inside a string: UTF-8 checked (no overlong forms, no surrogates), escapes as JSON has them (\u of a
// surrogate excluded: Python and others disagree on lone ones), code points counted against min/max length.
void JsonMatcher::string_byte(Stack& s, uint8_t c, JsonParseState* out) const {
  JsonFrame& f = s.back();
  const JsonNode& n = g_.nodes[f.node];
  // One more code point, unless the count no longer matters (no maximum, minimum reached): equal states merge.
  auto count = [&]() {
    if (n.max_len >= 0 && f.a >= n.max_len) return false;
    if (n.max_len >= 0 || f.a < n.min_len) ++f.a;
    return true;
  };
  if (f.phase == kStrEscape) {
    if (c == 'u') {
      f.phase = kStrHex, f.c = 0;
      emit(s, out);
    } else if (std::strchr("\"\\/bfnrt", c) && c != 0) {
      f.phase = kStr;
      emit(s, out);
    }
    return;
  }
  if (f.phase == kStrHex) {
    if (!is_hex(c)) return;
    // \uD800-\uDFFF: the first digit d, the second 8-f.
    if (f.c == 1 && f.pending == 1 && ((c >= '8' && c <= '9') || (c | 0x20) >= 'a')) return;
    f.pending = f.c == 0 && (c | 0x20) == 'd' ? 1 : 0;
    if (++f.c == 4) f.phase = kStr, f.pending = 0;
    emit(s, out);
    return;
  }
  if (f.pending > 0) {
    if (c < f.lo || c > f.hi) return;
    --f.pending, f.lo = 0x80, f.hi = 0xBF;
    emit(s, out);
    return;
  }
  if (c == '"') {
    if (f.a >= n.min_len) s.pop_back(), emit(s, out);
    return;
  }
  if (c < 0x20) return;
  if (c < 0x80) {
    if (!count()) return;
    if (c == '\\') f.phase = kStrEscape;
    emit(s, out);
    return;
  }
  uint8_t more = 0, lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) more = 1;
  else if (c == 0xE0) more = 2, lo = 0xA0;
  else if (c == 0xED) more = 2, hi = 0x9F;
  else if (c >= 0xE1 && c <= 0xEF) more = 2;
  else if (c == 0xF0) more = 3, lo = 0x90;
  else if (c >= 0xF1 && c <= 0xF3) more = 3;
  else if (c == 0xF4) more = 3, hi = 0x8F;
  else return;
  if (!count()) return;
  f.pending = more, f.lo = lo, f.hi = hi;
  emit(s, out);
}

bool JsonMatcher::complete(const JsonParseState& s) const {
  uint32_t begin = 0;
  for (uint32_t end : s.ends) {
    if (end == begin || (end - begin == 1 && ends_implicitly(s.frames[begin]))) return true;
    begin = end;
  }
  return false;
}

bool JsonMatcher::finished(const JsonParseState& s) const {
  uint32_t begin = 0;
  for (uint32_t end : s.ends) {
    if (end != begin) return false;
    begin = end;
  }
  return !s.ends.empty();
}

bool JsonMatcher::inside_string(const JsonParseState& s, int64_t* room, int64_t* need) const {
  if (s.ends.size() != 1 || s.ends[0] == 0) return false;
  const JsonFrame& f = s.frames[s.ends[0] - 1];
  const JsonNode& n = g_.nodes[f.node];
  if (f.phase != kStr || f.pending != 0) return false;
  *room = n.max_len < 0 ? -1 : n.max_len - f.a;
  *need = std::max(n.min_len - f.a, 0);
  return true;
}

int64_t JsonMatcher::frame_cost(const JsonFrame& f) const {
  const JsonNode& n = g_.nodes[f.node];
  auto min_of = [&](int32_t node) { return g_.nodes[node].min_bytes; };
  // Required properties from i on, each with the comma before it when `after_value`, then '}'.
  auto rest_of_object = [&](int32_t i, bool after_value) {
    const int64_t k = n.required_count_from[i];
    return add_bytes(n.required_bytes_from[i], (after_value ? k : std::max<int64_t>(k - 1, 0)) + 1);
  };
  const bool declared = !n.props.empty();
  const int64_t item = n.kind == JsonNodeKind::kArray ? add_bytes(min_of(n.items), 1) : 0;  // and its separator
  switch (f.phase) {
    case kStart:
    case kFresh:
      return n.min_bytes;
    case kObjOpen:
      return declared ? rest_of_object(0, false) : 1;
    case kObjKey: {
      if (!declared) return add_bytes(min_of(n.additional), 4);
      if (n.required_count_from[f.a] > 0) return rest_of_object(f.a, false);
      int64_t best = kNoValueBytes;
      for (size_t j = f.a; j < n.props.size(); ++j)
        best = std::min(best, add_bytes(min_of(n.props[j].key) + 1, min_of(n.props[j].value)));
      return add_bytes(best, 1);
    }
    case kObjColon:
      if (f.b < 0) return add_bytes(min_of(n.additional), 2);
      return add_bytes(min_of(n.props[f.b].value) + 1, rest_of_object(f.b + 1, true));
    case kObjNext:
      return declared ? rest_of_object(f.a, true) : 1;
    case kArrOpen:
      return n.min_items == 0 ? 1 : times_bytes(n.min_items, item);
    case kArrItem:
      return times_bytes(std::max(n.min_items - f.a, 1), item);
    case kArrNext:
      return add_bytes(times_bytes(std::max(n.min_items - f.a, 0), item), 1);
    case kStr:
    case kStrEscape:
    case kStrHex: {
      const int64_t open = f.phase == kStrEscape ? 1 : f.phase == kStrHex ? 4 - f.c : f.pending;
      return open + std::max(n.min_len - f.a, 0) + 1;
    }
    case kNum:
      return num_complete(f.a) ? 0 : 1;
    case kLit: {
      int64_t best = kNoValueBytes;
      for (int32_t i = f.a; i < f.b; ++i)
        best = std::min<int64_t>(best, static_cast<int64_t>(n.literals[i].size()) - f.c);
      return best;
    }
  }
  return kNoValueBytes;
}

int64_t JsonMatcher::bytes_to_complete(const JsonParseState& s) const {
  int64_t best = kNoValueBytes;
  uint32_t begin = 0;
  for (uint32_t end : s.ends) {
    int64_t sum = 0;
    for (uint32_t i = begin; i < end; ++i) sum = add_bytes(sum, frame_cost(s.frames[i]));
    best = std::min(best, sum);
    begin = end;
  }
  return best;
}

}  // namespace saguaro
