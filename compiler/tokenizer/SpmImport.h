// Compiles a SentencePiece tokenizer (`tokenizer.model` protobuf, or the vocabulary of a GGUF file whose
// tokenizer.ggml.model is "llama") into the runtime's `tokenizer.spm` tensor (format in
// runtime-min/src/tokenizer_spm.cpp's header comment) plus blob metadata.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace saguaro {

/// Reads `path` (tokenizer.model, or a .gguf told apart by its magic) and writes the tokenizer.spm table and the
/// metadata tokenizer.kind = spm, bos/eos ids, add_bos, add_eos, vocab_size. Unsupported features (a
/// precompiled_charsmap normalizer, WORD/CHAR models, whitespace-as-suffix) are errors naming the feature;
/// every error is one line "PATH: problem".
bool import_spm_tokenizer(const std::string& path, std::vector<uint8_t>* bytes,
                          std::vector<std::pair<std::string, std::string>>* meta, std::string* err);

}  // namespace saguaro
