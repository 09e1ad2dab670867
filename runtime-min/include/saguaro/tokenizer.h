// Tokenizer interface used by the generation loop, and the factory that builds one from a blob's tokenizer tensor.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace saguaro {

class Blob;

/// Text ↔ token ids. encode() reuses scratch storage, so it does not allocate once buffers are large enough.
class Tokenizer {
 public:
  virtual ~Tokenizer() = default;
  /// Replaces `out` with the ids of `text`, BOS first when `add_bos`; false + `err` when the text cannot be encoded.
  virtual bool encode(std::string_view text, bool add_bos, std::vector<int32_t>* out, std::string* err) = 0;
  /// The bytes to print for `token` when it follows `prev` (may be empty).
  virtual std::string_view piece(int32_t prev, int32_t token) const = 0;
  /// Number of token ids.
  virtual int32_t vocab_size() const = 0;
  /// Longest piece() in bytes.
  virtual size_t max_piece_bytes() const = 0;

  int32_t bos_id = -1;   // -1: none
  int32_t eos_id = -1;   // -1: none
  bool add_bos = false;  // prepend BOS when encoding a prompt
  bool stop_at_bos = false;  // llama2.c semantics: generation ends when BOS is sampled (instead of EOS)
  std::vector<int32_t> stop_ids;  // generation also ends at these (generation_config.json's eos_token_id)

  /// True when sampling `token` ends generation.
  bool is_stop(int32_t token) const {
    if (stop_at_bos ? token == bos_id : token == eos_id) return true;
    for (int32_t id : stop_ids)
      if (id == token) return true;
    return false;
  }
};

/// Builds the tokenizer named by the blob's `tokenizer.kind` metadata; null + "BLOB: problem" on failure.
std::unique_ptr<Tokenizer> make_tokenizer(const Blob& blob, std::string* err);

}  // namespace saguaro
