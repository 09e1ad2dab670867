// Translates the pipeline components of a Hugging Face tokenizer.json (normalizer, pre_tokenizer, decoder,
// post_processor) into the step tables of the tokenizer.bpe tensor. Errors name the component, e.g.
// "unsupported pre_tokenizer 'Whitespace'"; the caller prefixes the file name.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "UnicodeTables.h"

namespace saguaro {

/// Appends the normalizer steps (u32 count + steps; runtime unicode/text_normalizer.h); notes the tables it needs.
bool compile_normalizer(const nlohmann::json& n, std::vector<uint8_t>* out, UnicodeTableNeeds* needs, std::string* err);

/// Appends the pre-tokenizer steps (runtime unicode/pre_tokenizer.h); *byte_level is set when a ByteLevel step
/// makes the model work on bytes.
bool compile_pre_tokenizer(const nlohmann::json& p, std::vector<uint8_t>* out, UnicodeTableNeeds* needs,
                           bool* byte_level, std::string* err);

/// The decoder, folded into a per-token transform plus a strip of the decoded text's start.
struct TokenDecoder {
  /// Reads the "decoder" component (null: pieces are the token strings).
  bool compile(const nlohmann::json& d, std::string* err);
  /// The bytes the decoder makes of one token string.
  std::string piece(const std::string& token) const;

  uint32_t strip_start = 0;   // leading copies of strip_content removed from the whole decoded text
  std::string strip_content;

 private:
  bool add(const nlohmann::json& d, bool* fused, std::string* err);
  struct Step { std::string type, a, b; uint32_t n = 0; };
  std::vector<Step> steps_;
};

/// Special-token ids the post_processor puts before and after the text ("with special tokens").
bool compile_post_processor(const nlohmann::json& p, const std::map<std::string, int64_t>& ids,
                            std::vector<int32_t>* prefix, std::vector<int32_t>* suffix, std::string* err);

/// A non-negative JSON integer below `limit` (a token id, a count), or -1 for anything else. Floats are refused, not
/// converted: nlohmann's conversion of an out-of-range float such as 1e77 is undefined behaviour.
int64_t json_index(const nlohmann::json& v, int64_t limit);

/// Maps a string of GPT-2's byte-level alphabet back to the bytes it stands for; false if a character is outside.
bool byte_level_to_bytes(const std::string& s, std::string* bytes);

}  // namespace saguaro
