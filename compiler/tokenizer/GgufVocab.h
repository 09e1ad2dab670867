// A bounds-checked reader of GGUF files (header, metadata key/values of every GGUF type, tensor infos) and of
// the tokenizer vocabulary stored in their `tokenizer.ggml.*` metadata. Tensor data is never read, so a
// vocab-only GGUF (zero tensors) is the usual input.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace saguaro {

/// GGUF metadata value types (gguf.h numbering).
enum class GgufType : uint32_t {
  kU8 = 0, kI8 = 1, kU16 = 2, kI16 = 3, kU32 = 4, kI32 = 5, kF32 = 6, kBool = 7,
  kString = 8, kArray = 9, kU64 = 10, kI64 = 11, kF64 = 12
};

/// One metadata value. Scalars fill the field of their kind; arrays fill `strings` (STRING elements), `numbers`
/// (numeric and BOOL elements, as double) or `arrays` (nested ARRAY elements).
struct GgufValue {
  GgufType type = GgufType::kU8;
  GgufType elem = GgufType::kU8;  // element type of an array
  uint64_t u = 0;                 // U8..U64 and BOOL
  int64_t i = 0;                  // I8..I64
  double f = 0;                   // F32, F64
  std::string str;
  std::vector<std::string> strings;
  std::vector<double> numbers;
  std::vector<GgufValue> arrays;
  uint64_t size() const { return strings.size() + numbers.size() + arrays.size(); }
};

struct GgufTensorInfo {
  std::string name;
  std::vector<uint64_t> dims;
  uint32_t ggml_type = 0;
  uint64_t offset = 0;
};

struct GgufFile {
  uint32_t version = 0;
  std::vector<std::pair<std::string, GgufValue>> kv;
  std::vector<GgufTensorInfo> tensors;
  /// The value of `key`, or null.
  const GgufValue* find(const std::string& key) const;
};

/// Parses GGUF v2/v3 bytes (little endian); false + a one-line `err` (no file name) when malformed.
bool parse_gguf(const uint8_t* data, uint64_t size, GgufFile* out, std::string* err);

/// The SentencePiece-relevant `tokenizer.ggml.*` metadata of a GGUF file.
struct GgufVocab {
  std::string model;                 // tokenizer.ggml.model ("llama" = SentencePiece BPE)
  std::vector<std::string> tokens;
  std::vector<float> scores;         // empty when the file has none
  std::vector<int32_t> token_types;  // empty when the file has none; SentencePiece type numbers
  int32_t bos_id = -1, eos_id = -1, unk_id = -1, pad_id = -1;
  bool add_bos = false, add_eos = false;
  bool add_space_prefix = true, remove_extra_whitespaces = false;
  uint64_t precompiled_charsmap_bytes = 0;
};

/// Extracts and validates the vocabulary (lengths agree, ids in range, value types as llama.cpp writes them).
bool read_gguf_vocab(const GgufFile& file, GgufVocab* out, std::string* err);

}  // namespace saguaro
