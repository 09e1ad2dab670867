// A bounds-checked reader for SentencePiece `tokenizer.model` files (protobuf ModelProto), limited to the fields
// a tokenizer needs. No protobuf dependency: the wire format is decoded by hand, every length checked against
// the bytes that remain.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace saguaro {

/// SentencePiece piece types (ModelProto.SentencePiece.Type); GGUF's token_type uses the same numbers.
enum class SpmPieceType : uint8_t { kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4, kUnused = 5, kByte = 6 };

/// The parts of a ModelProto that define tokenization.
struct SentencePieceModel {
  struct Piece {
    std::string piece;
    float score = 0;
    SpmPieceType type = SpmPieceType::kNormal;
  };
  std::vector<Piece> pieces;
  int32_t model_type = 1;  // TrainerSpec.ModelType: 1 UNIGRAM, 2 BPE, 3 WORD, 4 CHAR
  bool byte_fallback = false;
  bool treat_whitespace_as_suffix = false;
  int32_t unk_id = 0, bos_id = 1, eos_id = 2, pad_id = -1;
  std::string unk_surface = " \xE2\x81\x87 ";
  std::string normalizer_name;
  bool add_dummy_prefix = true, remove_extra_whitespaces = true, escape_whitespaces = true;
  uint64_t precompiled_charsmap_bytes = 0;   // size of normalizer_spec.precompiled_charsmap (0: absent)
  uint64_t denormalizer_charsmap_bytes = 0;  // size of denormalizer_spec.precompiled_charsmap (0: absent)
};

/// Parses ModelProto bytes; false + `err` (one line, no file name) when the bytes are not a valid model.
bool parse_sentencepiece_model(const uint8_t* data, uint64_t size, SentencePieceModel* out, std::string* err);

}  // namespace saguaro
