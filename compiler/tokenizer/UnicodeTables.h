// Builds the Unicode tables of the tokenizer tensor from the Unicode Character Database (Debian unicode-data).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace saguaro {

/// Which parts of the tables a tokenizer needs.
struct UnicodeTableNeeds {
  bool classes = false;        // letter / number / white-space ranges (pre-tokenizer patterns, strips)
  bool normalization = false;  // canonical decompositions, combining classes, compositions (NFC, NFD)
  bool compat = false;         // compatibility decompositions too (NFKC, NFKD)
};

/// The UCD directory: $SAGUARO_UNICODE_DIR when set, else /usr/share/unicode.
std::string unicode_data_dir();

/// Appends the section runtime-min/src/unicode/unicode_tables.h describes, with only the parts `needs` asks for,
/// read from UnicodeData.txt, PropList.txt and DerivedNormalizationProps.txt in unicode_data_dir().
bool append_unicode_tables(const UnicodeTableNeeds& needs, std::vector<uint8_t>* out, std::string* err);

}  // namespace saguaro
