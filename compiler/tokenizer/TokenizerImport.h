// Converts tokenizer files into the runtime's tokenizer tensors (tokenizer.llama2c, tokenizer.bpe) + blob metadata.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace saguaro {

/// Validates a llama2.c tokenizer.bin and returns its bytes unchanged plus metadata (kind, bos/eos, vocab size).
bool import_llama2c_tokenizer(const std::string& path, std::vector<uint8_t>* bytes,
                              std::vector<std::pair<std::string, std::string>>* meta, std::string* err);

/// Compiles a Hugging Face BPE tokenizer.json (a directory holding it, or its path) into the tokenizer.bpe table
/// (vocab, merges, added tokens, normalizer / pre-tokenizer / decoder steps, post-processor ids, Unicode tables);
/// reads tokenizer_config.json beside it for bos/eos/add_bos_token/add_eos_token, and generation_config.json's
/// eos_token_id for the ids generation stops at (metadata tokenizer.stop_ids). Rejects unsupported components
/// by name ("PATH: unsupported pre_tokenizer 'Whitespace'").
bool import_hf_tokenizer(const std::string& dir_or_tokenizer_json, std::vector<uint8_t>* bytes,
                         std::vector<std::pair<std::string, std::string>>* meta, std::string* err);

}  // namespace saguaro
