// Hand-written matchers for the pre-tokenizer regexes real BPE models use (no regex engine at run time).
#pragma once

#include <cstddef>
#include <cstdint>

namespace saguaro {

/// The known patterns; the compiler maps each exact regex string to one of these.
enum class SplitPattern : uint8_t {
  /// 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
  Gpt2 = 1,
  /// (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
  Llama3 = 2,
  /// The Llama 3 pattern with \p{N} instead of \p{N}{1,3} (Qwen2, Qwen2.5, Qwen3).
  Qwen2 = 3,
};

/// End (exclusive) of the leftmost-first match of `p` starting at code point `i` of cp[0..n), or `i` when the
/// pattern does not match there. cls[k] holds the UnicodeClass bits of cp[k].
size_t match_split_pattern(SplitPattern p, const uint32_t* cp, const uint8_t* cls, size_t n, size_t i);

}  // namespace saguaro
