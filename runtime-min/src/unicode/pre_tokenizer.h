// The pre-tokenizer steps of a compiled tokenizer (Hugging Face pre_tokenizers, Sequence flattened).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "unicode/byte_reader.h"
#include "unicode/split_patterns.h"
#include "unicode/unicode_tables.h"

namespace saguaro {

/// Step kinds as stored in the table: u8 kind, then its arguments.
enum class PreTokenizerOp : uint8_t {
  SplitPattern = 1,  // u8 SplitPattern, u8 SplitBehavior, u8 invert
  SplitString = 2,   // str literal, u8 SplitBehavior, u8 invert
  ByteLevel = 3,     // u8 add_prefix_space, u8 use_regex (GPT-2 pattern, Isolated); must be the last step
  Digits = 4,        // u8 individual_digits
  Metaspace = 5,     // str replacement, u8 prepend_scheme (0 always, 1 first, 2 never), u8 split
};

/// Hugging Face's SplitDelimiterBehavior.
enum class SplitBehavior : uint8_t { Removed = 0, Isolated = 1, MergedWithPrevious = 2, MergedWithNext = 3, Contiguous = 4 };

/// Splits normalized text into the words the model encodes one by one.
class PreTokenizer {
 public:
  /// Reads a u32 step count, then the steps.
  bool parse(ByteReader* r, std::string* err);
  /// True when a step uses the class tables.
  bool needs_classes() const;
  /// Runs the steps over `text`; `at_start`: the text begins the input (Metaspace "first"). The views stay valid
  /// until the next call.
  void run(const UnicodeTables& t, std::string_view text, bool at_start, std::vector<std::string_view>* words);

 private:
  struct Op {
    PreTokenizerOp kind;
    uint8_t a = 0, b = 0, c = 0;
    std::string s;
  };
  struct Span { uint32_t begin, end; bool at_start; };
  struct Seg { uint32_t begin, end; bool match; };
  void find_segments(const Op& op, const UnicodeTables& t, std::string_view text);
  void emit(std::string_view text, bool at_start, SplitBehavior how, bool invert);

  std::vector<Op> ops_;
  std::string buf_[2];
  std::vector<Span> spans_[2];
  int cur_ = 0;
  std::string tmp_;
  std::vector<Seg> segs_;
  std::vector<uint32_t> cps_, offs_;
  std::vector<uint8_t> cls_;
};

}  // namespace saguaro
