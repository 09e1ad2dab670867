// Unicode property and normalization tables compiled into the tokenizer tensor (written by
// compiler/tokenizer/UnicodeTables.cpp from the Unicode Character Database).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "unicode/byte_reader.h"

namespace saguaro {

/// Character classes of the pre-tokenizers (bit set per code point).
enum UnicodeClass : uint8_t {
  kClassLetter = 1,      // general category L*
  kClassNumber = 2,      // general category N*
  kClassSpace = 4,       // White_Space property
};

/// Section layout (little endian u32s), each part may be empty:
///   n_class × {lo, hi, class bits}          sorted, disjoint
///   n_ccc × {lo, hi, canonical combining class}   nonzero classes only
///   n_decomp × {cp, canon_off, canon_len, compat_off, compat_len}, then n_pool × code point
///                                           full (recursive) decompositions; Hangul is algorithmic
///   n_comp × {first, second, composite}     primary composites, sorted by (first, second)
class UnicodeTables {
 public:
  /// Reads the section from `r`; false + `err` when it is truncated or out of order.
  bool parse(ByteReader* r, std::string* err);

  /// Class bits of `cp` (0 for unassigned code points and raw bytes).
  uint8_t classes(uint32_t cp) const { return cp < 128 ? ascii_[cp] : lookup_class(cp); }
  /// Canonical combining class of `cp`.
  uint8_t ccc(uint32_t cp) const;
  /// Appends the full decomposition of `cp` (compatibility too when `compat`), or `cp` itself.
  void decompose(uint32_t cp, bool compat, std::vector<uint32_t>* out) const;
  /// The primary composite of (a, b), or 0 when there is none.
  uint32_t compose(uint32_t a, uint32_t b) const;
  /// True when the normalization tables were compiled in.
  bool has_normalization() const { return !comp_.empty(); }
  /// True when the class tables were compiled in.
  bool has_classes() const { return !class_.empty(); }

 private:
  struct Range { uint32_t lo, hi, value; };
  struct Decomp { uint32_t cp, canon_off, canon_len, compat_off, compat_len; };
  struct Comp { uint32_t first, second, composite; };
  uint8_t lookup_class(uint32_t cp) const;

  std::vector<Range> class_, ccc_;
  std::vector<Decomp> decomp_;
  std::vector<uint32_t> pool_;
  std::vector<Comp> comp_;
  uint8_t ascii_[128] = {};
};

}  // namespace saguaro
