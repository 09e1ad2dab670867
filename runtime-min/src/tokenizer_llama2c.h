// llama2.c tokenizer.bin: encode as run.c encode(), print pieces as run.c decode() + safe_printf().
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "saguaro/tokenizer.h"

namespace saguaro {

class Llama2cTokenizer final : public Tokenizer {
 public:
  /// Parses tokenizer.bin bytes (int32 max_token_length, then {f32 score, i32 len, bytes} per id until the end).
  static std::unique_ptr<Llama2cTokenizer> create(const unsigned char* data, uint64_t size, std::string* err);

  bool encode(std::string_view text, bool add_bos, std::vector<int32_t>* out, std::string* err) override;
  std::string_view piece(int32_t prev, int32_t token) const override;
  int32_t vocab_size() const override { return static_cast<int32_t>(offsets_.size()); }
  size_t max_piece_bytes() const override { return max_len_; }

 private:
  Llama2cTokenizer() = default;
  const char* str(int32_t id) const { return pool_.data() + offsets_[id]; }
  int32_t lookup(const char* s) const;  // run.c str_lookup: id of the exact string, or -1

  std::string pool_;               // NUL-terminated strings
  std::vector<uint32_t> offsets_;  // id → start in pool_
  std::vector<float> scores_;
  std::vector<int32_t> sorted_;    // ids sorted by strcmp of their strings
  std::vector<char> buf_;          // concatenation scratch, 2 * max_len_ + 3
  size_t max_len_ = 0;
  unsigned char byte_pieces_[512] = {};  // byte b as a NUL-terminated string at 2*b
};

}  // namespace saguaro
