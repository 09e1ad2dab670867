// Added-token matching with HF semantics: non-overlapping leftmost-longest matches, then the lstrip / rstrip /
// single_word adjustments of AddedVocabulary::find_matches.
#include "unicode/added_tokens.h"

#include <algorithm>

#include "unicode/utf8.h"

namespace saguaro {
namespace {

// Start of the code point that ends at byte `end` of `s` (end > 0).
size_t char_before(std::string_view s, size_t end) {
  size_t k = end - 1;
  while (k > 0 && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80 && end - k < 4) --k;
  return k;
}

uint8_t class_at(const UnicodeTables& t, std::string_view s, size_t i) {
  size_t n;
  return t.classes(utf8::decode(s, i, &n));
}

}  // namespace

void AddedTokenMatcher::add(int32_t id, std::string text, uint8_t flags) {
  if (text.empty()) return;
  const uint32_t index = static_cast<uint32_t>(tokens_.size());
  auto& list = by_first_byte_[static_cast<unsigned char>(text[0])];
  tokens_.push_back({id, std::move(text), flags});
  list.push_back(index);
  std::stable_sort(list.begin(), list.end(),
                   [&](uint32_t a, uint32_t b) { return tokens_[a].text.size() > tokens_[b].text.size(); });
}

void AddedTokenMatcher::split(const UnicodeTables& t, std::string_view text, std::vector<Part>* parts) const {
  parts->clear();
  constexpr uint8_t kWord = kClassLetter | kClassNumber;
  size_t done = 0;  // end of the last emitted part
  for (size_t pos = 0; pos < text.size();) {
    const Token* m = nullptr;
    for (uint32_t k : by_first_byte_[static_cast<unsigned char>(text[pos])])
      if (text.compare(pos, tokens_[k].text.size(), tokens_[k].text) == 0) {
        m = &tokens_[k];
        break;
      }
    if (!m) {
      ++pos;
      continue;
    }
    size_t start = pos, stop = pos + m->text.size();
    pos = stop;
    if (m->flags & kSingleWord) {
      const bool word_before = start > 0 && (class_at(t, text, char_before(text, start)) & kWord);
      const bool word_after = stop < text.size() && (class_at(t, text, stop) & kWord);
      if (word_before || word_after) continue;
    }
    if (m->flags & kLstrip) {
      while (start > done && (class_at(t, text, char_before(text, start)) & kClassSpace)) start = char_before(text, start);
    }
    if (m->flags & kRstrip) {
      size_t n;
      while (stop < text.size() && (t.classes(utf8::decode(text, stop, &n)) & kClassSpace)) stop += n;
      pos = stop;
    }
    if (start > done) parts->push_back({static_cast<uint32_t>(done), static_cast<uint32_t>(start), -1});
    parts->push_back({static_cast<uint32_t>(start), static_cast<uint32_t>(stop), m->id});
    done = stop;
  }
  if (done < text.size()) parts->push_back({static_cast<uint32_t>(done), static_cast<uint32_t>(text.size()), -1});
}

}  // namespace saguaro
