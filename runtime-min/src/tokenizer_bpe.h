// Runtime side of the `tokenizer.bpe` tensor (format in tokenizer_bpe.cpp's header comment).
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "tokenizer.h"

namespace saguaro {

class BpeTokenizer final : public Tokenizer {
 public:
  /// Parses and validates the compact BPE table.
  static std::unique_ptr<BpeTokenizer> create(const unsigned char* data, uint64_t size, std::string* err);

  bool encode(std::string_view text, bool add_bos, std::vector<int32_t>* out, std::string* err) override;
  std::string_view piece(int32_t prev, int32_t token) const override;
  int32_t vocab_size() const override { return static_cast<int32_t>(tokens_.size()); }
  size_t max_piece_bytes() const override { return max_len_; }

 private:
  BpeTokenizer() = default;
  int32_t lookup(std::string_view s) const;  // model vocab id of exactly `s`, or -1
  void encode_segment(std::string_view s, std::vector<int32_t>* out);

  std::vector<std::string> tokens_;  // id → token string
  std::vector<std::string> pieces_;  // id → printed bytes (byte-fallback decoded; empty for special tokens)
  std::vector<uint8_t> flags_;       // id → kAdded | kSpecial
  std::vector<std::pair<std::string_view, int32_t>> sorted_;  // model vocab, sorted, for allocation-free lookup
  std::vector<int32_t> added_;       // added-token ids, matched before the model
  std::unordered_map<uint64_t, std::pair<uint32_t, int32_t>> merges_;  // (left<<32|right) → (rank, result)
  int32_t byte_ids_[256];            // "<0xXX>" ids for byte fallback, -1 when absent
  int32_t unk_id_ = -1;
  bool byte_fallback_ = false, fuse_unk_ = false, ignore_merges_ = false;
  size_t max_len_ = 0;
  std::vector<int32_t> syms_;        // scratch for encode_segment
};

}  // namespace saguaro
