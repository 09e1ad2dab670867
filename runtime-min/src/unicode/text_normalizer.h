// The normalizer steps of a compiled tokenizer (Hugging Face normalizers, Sequence flattened).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "unicode/byte_reader.h"
#include "unicode/normalize.h"
#include "unicode/unicode_tables.h"

namespace saguaro {

/// Step kinds as stored in the table: u8 kind, then its arguments.
enum class NormalizerOp : uint8_t {
  NFC = 1, NFD = 2, NFKC = 3, NFKD = 4,  // no arguments
  Replace = 5,                           // str pattern, str content: every occurrence of the literal pattern
  Prepend = 6,                           // str prefix: added in front of non-empty text
  Strip = 7,                             // u8 left, u8 right: remove White_Space at those ends
};

/// Applies the steps in order.
class TextNormalizer {
 public:
  /// Reads a u32 step count, then the steps.
  bool parse(ByteReader* r, std::string* err);
  /// True when a step uses the class tables (Strip).
  bool needs_classes() const;
  /// True when a step uses the decomposition/composition tables.
  bool needs_normalization() const;
  /// Writes the normalized `in` to `out` (which must not alias `in`).
  void apply(const UnicodeTables& t, std::string_view in, std::string* out);

 private:
  struct Op {
    NormalizerOp kind;
    std::string a, b;
    uint8_t left = 0, right = 0;
  };
  std::vector<Op> ops_;
  std::string tmp_;
  NormalizeScratch scratch_;
};

}  // namespace saguaro
