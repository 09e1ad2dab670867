// Each matcher follows the regex's alternatives in order, with the backtracking they imply written out.
#include "unicode/split_patterns.h"

#include "unicode/unicode_tables.h"

namespace saguaro {
namespace {

struct Text {
  const uint32_t* cp;
  const uint8_t* cls;
  size_t n;
  bool letter(size_t k) const { return k < n && (cls[k] & kClassLetter); }
  bool number(size_t k) const { return k < n && (cls[k] & kClassNumber); }
  bool space(size_t k) const { return k < n && (cls[k] & kClassSpace); }
  // [^\s\p{L}\p{N}]
  bool other(size_t k) const { return k < n && !(cls[k] & (kClassLetter | kClassNumber | kClassSpace)); }
  bool newline(size_t k) const { return k < n && (cp[k] == '\r' || cp[k] == '\n'); }
  bool is(size_t k, uint32_t c) const { return k < n && cp[k] == c; }
  // Case-insensitive ASCII letter test as (?i) does it (U+017F LONG S folds to s).
  bool is_ci(size_t k, char c) const {
    if (k >= n) return false;
    const uint32_t x = cp[k];
    return x == uint32_t(c) || x == uint32_t(c - 'a' + 'A') || (c == 's' && x == 0x17F);
  }
};

// 's|'t|'re|'ve|'m|'ll|'d, case-insensitively when `ci`.
size_t contraction(const Text& t, size_t i, bool ci) {
  if (!t.is(i, '\'')) return i;
  auto at = [&](size_t k, char c) { return ci ? t.is_ci(k, c) : t.is(k, uint32_t(c)); };
  for (char c : {'s', 't'})
    if (at(i + 1, c)) return i + 2;
  if (at(i + 1, 'r') && at(i + 2, 'e')) return i + 3;
  if (at(i + 1, 'v') && at(i + 2, 'e')) return i + 3;
  if (at(i + 1, 'm')) return i + 2;
  if (at(i + 1, 'l') && at(i + 2, 'l')) return i + 3;
  if (at(i + 1, 'd')) return i + 2;
  return i;
}

// \s+(?!\S)|\s+ at a whitespace character: the run, less its last character when a non-space follows.
size_t trailing_space(const Text& t, size_t i) {
  size_t k = i;
  while (t.space(k)) ++k;
  return (k == t.n || k - i == 1) ? k : k - 1;
}

// ` ?X+` for the class test `in`.
template <typename In>
size_t space_then_run(const Text& t, size_t i, In in) {
  size_t j = (t.is(i, ' ') && in(i + 1)) ? i + 1 : i;
  if (!in(j)) return i;
  while (in(j)) ++j;
  return j;
}

size_t gpt2(const Text& t, size_t i) {
  if (size_t e = contraction(t, i, false); e != i) return e;
  if (size_t e = space_then_run(t, i, [&](size_t k) { return t.letter(k); }); e != i) return e;
  if (size_t e = space_then_run(t, i, [&](size_t k) { return t.number(k); }); e != i) return e;
  if (size_t e = space_then_run(t, i, [&](size_t k) { return t.other(k); }); e != i) return e;
  return t.space(i) ? trailing_space(t, i) : i;
}

size_t llama3(const Text& t, size_t i, size_t max_digits) {
  if (size_t e = contraction(t, i, true); e != i) return e;
  // [^\r\n\p{L}\p{N}]?\p{L}+
  size_t j = i;
  if (!t.letter(j) && !t.number(j) && !t.newline(j) && t.letter(j + 1)) ++j;
  if (t.letter(j)) {
    while (t.letter(j)) ++j;
    return j;
  }
  // \p{N}{1,max}
  if (t.number(i)) {
    j = i + 1;
    while (j - i < max_digits && t.number(j)) ++j;
    return j;
  }
  // ' ?[^\s\p{L}\p{N}]+[\r\n]*'
  if (size_t e = space_then_run(t, i, [&](size_t k) { return t.other(k); }); e != i) {
    while (t.newline(e)) ++e;
    return e;
  }
  if (!t.space(i)) return i;
  // \s*[\r\n]+ : up to the last line break of the whitespace run
  size_t k = i, last_break = i;
  bool has_break = false;
  for (; t.space(k); ++k)
    if (t.newline(k)) last_break = k, has_break = true;
  if (has_break) return last_break + 1;
  return trailing_space(t, i);
}

}  // namespace

size_t match_split_pattern(SplitPattern p, const uint32_t* cp, const uint8_t* cls, size_t n, size_t i) {
  const Text t{cp, cls, n};
  switch (p) {
    case SplitPattern::Gpt2: return gpt2(t, i);
    case SplitPattern::Llama3: return llama3(t, i, 3);
    case SplitPattern::Qwen2: return llama3(t, i, 1);
  }
  return i;
}

}  // namespace saguaro
