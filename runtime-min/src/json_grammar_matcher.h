// The byte-level pushdown matcher of a compiled JSON Schema: a set of parse stacks (anyOf, and values that end
// only where the next byte does not continue them, make it nondeterministic) advanced one byte at a time, and the
// fewest bytes that complete a value from a state (what keeps generation within its token budget).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "json_schema_grammar.h"

namespace saguaro {

/// One frame of a parse stack. Plain data without padding: states are compared and hashed as bytes.
struct JsonFrame {
  int32_t node = 0;
  uint8_t phase = 0;
  uint8_t pending = 0;  // kString: UTF-8 continuation bytes still expected
  uint8_t lo = 0, hi = 0;  // kString: the range of the next continuation byte
  int32_t a = 0;  // object: next property index; array: items so far; string: code points; number: state;
                  // literals: first candidate
  int32_t b = 0;  // object: the property whose key was read (-1: an undeclared key); literals: end of candidates;
                  // number: exponent digits
  int32_t c = 0;  // literals: bytes matched; string \u escape: hex digits read
};

/// The parse stacks of every way the bytes so far can be read; stacks[i] is frames[ends[i-1] .. ends[i]).
struct JsonParseState {
  std::vector<JsonFrame> frames;
  std::vector<uint32_t> ends;
  void clear() { frames.clear(), ends.clear(); }
  bool empty() const { return ends.empty(); }
  bool operator==(const JsonParseState& o) const;
};

class JsonMatcher {
 public:
  explicit JsonMatcher(const JsonGrammarNodes& g) : g_(g) {}
  /// The state before the first byte of a value.
  void start(JsonParseState* s) const;
  /// *out = `in` advanced by byte `c` (empty when no stack accepts it). `out` must not be `in`.
  void step(const JsonParseState& in, uint8_t c, JsonParseState* out) const;
  /// Some reading is a complete value (a number may go on).
  bool complete(const JsonParseState& s) const;
  /// Every reading is a complete value that nothing may extend.
  bool finished(const JsonParseState& s) const;
  /// The fewest bytes that complete a value (0: complete); a large number when none does.
  int64_t bytes_to_complete(const JsonParseState& s) const;
  /// When `s` is one reading inside a string, between characters: true, and how many more code points it may
  /// take (*room, -1: any) and must take (*need). Each printable ASCII byte but '"' and '\\' is then one more.
  bool inside_string(const JsonParseState& s, int64_t* room, int64_t* need) const;

 private:
  using Stack = std::vector<JsonFrame>;
  void consume(Stack& s, uint8_t c, JsonParseState* out) const;
  void begin(Stack& s, uint8_t c, JsonParseState* out) const;
  void string_byte(Stack& s, uint8_t c, JsonParseState* out) const;
  void emit(const Stack& s, JsonParseState* out) const;
  bool ends_implicitly(const JsonFrame& f) const;
  int64_t frame_cost(const JsonFrame& f) const;

  const JsonGrammarNodes& g_;
  mutable Stack work_;  // scratch for step()
};

}  // namespace saguaro
