// Finds and compiles the tokenizer of a source: a model directory, a directory with tokenizer.json, a
// tokenizer.json, a SentencePiece tokenizer.model, a GGUF vocab file or a llama2.c tokenizer.bin.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace saguaro {

/// A compiled tokenizer: the blob tensor (name + bytes) and the metadata that describes it.
struct TokenizerTensor {
  std::string name;  // e.g. tokenizer.bpe
  std::vector<uint8_t> bytes;
  std::vector<std::pair<std::string, std::string>> meta;
};

/// Compiles the tokenizer at `source`; false + "FILE: problem" when it is missing or unsupported.
bool import_tokenizer(const std::string& source, TokenizerTensor* out, std::string* err);

/// The tokenizer file a model directory carries (tokenizer.json, then tokenizer.model), or "".
std::string find_tokenizer_in(const std::string& dir);

}  // namespace saguaro
