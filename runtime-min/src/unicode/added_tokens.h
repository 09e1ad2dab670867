// Finds added tokens in text before the model sees it (Hugging Face AddedVocabulary::find_matches).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "unicode/unicode_tables.h"

namespace saguaro {

/// Per-token options of an added token.
enum AddedTokenFlag : uint8_t { kLstrip = 1, kRstrip = 2, kSingleWord = 4 };

/// One set of added tokens (either the ones matched on raw text or the ones matched on normalized text).
class AddedTokenMatcher {
 public:
  /// Adds token `id` with the literal `text` (ignored when empty).
  void add(int32_t id, std::string text, uint8_t flags);
  /// A piece of the split: plain text [begin, end) when id < 0, else the added token `id`.
  struct Part { uint32_t begin, end; int32_t id; };
  /// Splits `text` into plain stretches and added tokens (leftmost, then longest match; lstrip/rstrip take the
  /// whitespace around a token; single_word tokens only match between non-word characters).
  void split(const UnicodeTables& t, std::string_view text, std::vector<Part>* parts) const;

 private:
  struct Token { int32_t id; std::string text; uint8_t flags; };
  std::vector<Token> tokens_;
  std::vector<uint32_t> by_first_byte_[256];  // indexes into tokens_, longest first
};

}  // namespace saguaro
