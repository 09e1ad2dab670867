// Runtime side of the `tokenizer.spm` tensor: SentencePiece BPE and unigram (format in tokenizer_spm.cpp).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "saguaro/tokenizer.h"

namespace saguaro {

class SpmTokenizer final : public Tokenizer {
 public:
  /// Parses and validates the compact SentencePiece table.
  static std::unique_ptr<SpmTokenizer> create(const unsigned char* data, uint64_t size, std::string* err);

  bool encode(std::string_view text, bool add_bos, std::vector<int32_t>* out, std::string* err) override;
  std::string_view piece(int32_t prev, int32_t token) const override;
  int32_t vocab_size() const override { return static_cast<int32_t>(pieces_.size()); }
  size_t max_piece_bytes() const override { return max_len_; }

 private:
  struct Symbol {  // a BPE symbol: bytes [begin, begin+len) of norm_, linked to its live neighbours
    int32_t prev, next;
    uint32_t begin, len;
    bool freeze;
  };
  struct Pair {  // a candidate BPE merge of the symbols left and right
    float score;
    int32_t left, right;
    uint32_t size;
  };
  struct BestPath {  // unigram Viterbi: best path ending at a byte position
    int32_t id;
    float score;
    int32_t starts_at;
  };

  SpmTokenizer() = default;
  static bool pair_before(const Pair& a, const Pair& b);  // agenda order: lower score, then further right
  void normalize(std::string_view text);                // text → norm_ (sentencepiece's Normalizer, no charsmap)
  size_t user_defined_prefix(std::string_view s) const;  // length of the longest USER_DEFINED piece at s, 0 if none
  int32_t piece_to_id(std::string_view s) const;         // reserved pieces first, then the vocab, else unk
  void encode_bpe();                                     // norm_ → result_ (bpe_model.cc)
  void maybe_add_pair(int32_t left, int32_t right);
  void resegment(std::string_view w);                    // splits merged UNUSED pieces back (bpe_model.cc)
  void encode_unigram();                                 // norm_ → result_ (unigram EncodeOptimized)
  void emit(std::string_view w, int32_t id, std::vector<int32_t>* out);  // byte fallback / unk merging

  std::vector<std::string> pieces_;   // id → piece
  std::vector<float> scores_;
  std::vector<uint8_t> types_;        // SentencePiece piece types 1..6
  std::vector<std::string> printed_;  // id → decoded bytes
  std::vector<uint8_t> strip_;        // id → bytes to drop at the start of the text (a leading space)
  std::unordered_map<std::string_view, int32_t> vocab_;     // NORMAL, USER_DEFINED, UNUSED pieces
  std::unordered_map<std::string_view, int32_t> reserved_;  // UNKNOWN, CONTROL, BYTE pieces
  std::vector<int32_t> user_defined_;
  bool user_first_[256] = {};         // first bytes of USER_DEFINED pieces
  int32_t byte_ids_[256];
  int32_t unk_id_ = 0;
  uint32_t algorithm_ = 0, flags_ = 0;
  float min_score_ = 0, max_score_ = 0;
  size_t max_len_ = 0, max_piece_ = 0;

  // encode() scratch, reused across calls
  std::string norm_;
  std::vector<std::pair<std::string_view, int32_t>> result_;  // model output: (bytes of norm_, id)
  std::vector<Symbol> syms_;
  std::vector<Pair> agenda_;
  std::unordered_map<std::string_view, std::pair<std::string_view, std::string_view>> rev_merge_;
  std::vector<BestPath> best_;
  bool prev_unk_ = false;
};

}  // namespace saguaro
