// Runtime side of the `tokenizer.bpe` tensor (format in tokenizer_bpe.cpp's header comment).
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "saguaro/tokenizer.h"
#include "unicode/added_tokens.h"
#include "unicode/pre_tokenizer.h"
#include "unicode/text_normalizer.h"
#include "unicode/unicode_tables.h"

namespace saguaro {

class BpeTokenizer final : public Tokenizer {
 public:
  /// Parses and validates the compiled table.
  static std::unique_ptr<BpeTokenizer> create(const unsigned char* data, uint64_t size, std::string* err);

  /// `add_bos`: add the special tokens of the post-processor ("with special tokens"), BOS and/or EOS.
  bool encode(std::string_view text, bool add_bos, std::vector<int32_t>* out, std::string* err) override;
  std::string_view piece(int32_t prev, int32_t token) const override;
  int32_t vocab_size() const override { return static_cast<int32_t>(toks_.size()); }
  size_t max_piece_bytes() const override { return max_len_; }

  /// The decoded text of `ids` (special tokens left out when `skip_special`); false on an id out of range.
  bool decode(const std::vector<int32_t>& ids, bool skip_special, std::string* out, std::string* err) const;

 private:
  struct Tok {
    uint32_t text_off, text_len, piece_off, piece_len;
    uint8_t flags;
  };
  struct Merge { uint32_t rank; int32_t result; };
  BpeTokenizer() = default;
  bool parse(const unsigned char* data, uint64_t size, std::string* err);
  std::string_view text(int32_t id) const { return {arena_.data() + toks_[id].text_off, toks_[id].text_len}; }
  std::string_view raw_piece(int32_t id) const { return {arena_.data() + toks_[id].piece_off, toks_[id].piece_len}; }
  int32_t lookup(std::string_view s) const;  // model vocab id of exactly `s`, or -1
  void encode_text(std::string_view s, bool at_start, std::vector<int32_t>* out);  // normalized-token split + model
  void encode_word(std::string_view w, std::vector<int32_t>* out);                 // the BPE model on one word
  void initial_symbols(std::string_view w);
  void merge_symbols();

  std::string arena_;                // token texts and pieces
  std::vector<Tok> toks_;
  std::vector<int32_t> sorted_;      // model vocab ids sorted by text
  std::unordered_map<uint64_t, Merge> merges_;  // (left<<32|right) → rank, result
  int32_t byte_ids_[256];            // "<0xXX>" ids for byte fallback, -1 when absent
  int32_t byte_sym_[256];            // single-byte model tokens (byte-level models), -1 when absent
  int32_t unk_id_ = -1;
  bool byte_fallback_ = false, fuse_unk_ = false, ignore_merges_ = false, byte_level_ = false;
  std::string prefix_, suffix_;      // continuing_subword_prefix, end_of_word_suffix
  std::vector<int32_t> post_prefix_, post_suffix_;  // ids added "with special tokens"
  uint32_t strip_start_ = 0;         // decoder: leading copies of strip_content_ removed from the text
  std::string strip_content_;
  size_t max_len_ = 0;
  UnicodeTables unicode_;
  TextNormalizer normalizer_;
  PreTokenizer pre_tokenizer_;
  AddedTokenMatcher raw_added_, normalized_added_;

  // scratch
  struct Sym { int32_t id, prev, next; };
  struct Cand { uint32_t rank; int32_t pos, result; };
  std::vector<Sym> syms_;
  std::vector<Cand> heap_;
  std::vector<AddedTokenMatcher::Part> parts_, inner_parts_;
  std::vector<std::string_view> words_;
  std::string normalized_, key_;
};

}  // namespace saguaro
