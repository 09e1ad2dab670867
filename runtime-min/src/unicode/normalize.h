// Unicode normalization forms (UAX #15) over the compiled tables.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "unicode/unicode_tables.h"

namespace saguaro {

enum class NormalForm : uint8_t { NFC = 1, NFD = 2, NFKC = 3, NFKD = 4 };

/// Reusable buffers, so normalizing does not allocate once they are large enough.
struct NormalizeScratch {
  std::vector<uint32_t> cps;
};

/// Writes the normalization form `form` of `in` to `out` (invalid UTF-8 bytes pass through unchanged).
void normalize(const UnicodeTables& t, NormalForm form, std::string_view in, NormalizeScratch* scratch, std::string* out);

}  // namespace saguaro
