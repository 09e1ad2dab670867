// The compiled form of a JSON Schema: a graph of value nodes ($ref resolved, anyOf flattened) with the shortest
// text of each, which the byte matcher (json_grammar_matcher.h) walks.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace saguaro {

/// Byte counts of texts that cannot be completed; sums and products of byte counts saturate at it.
constexpr int64_t kNoValueBytes = std::numeric_limits<int64_t>::max() / 4;
inline int64_t add_bytes(int64_t a, int64_t b) { return std::min(kNoValueBytes, a + b); }
inline int64_t times_bytes(int64_t n, int64_t b) { return n == 0 ? 0 : b >= kNoValueBytes / n ? kNoValueBytes : n * b; }

enum class JsonNodeKind : uint8_t {
  kObject,   // properties in declared order; or, with none declared, any keys whose values match `additional`
  kArray,    // items, between min_items and max_items of them
  kString,   // min_len..max_len code points
  kNumber,
  kInteger,
  kLiterals,  // one of `literals` (compact JSON texts: enum, const, true/false/null, property keys)
  kAnyOf,     // one of `alts` (concrete nodes, never kAnyOf)
};

struct JsonProperty {
  int32_t key = -1;   // the kLiterals node of the key's JSON string
  int32_t value = -1;
  bool required = false;
};

struct JsonNode {
  JsonNodeKind kind = JsonNodeKind::kAnyOf;
  std::vector<JsonProperty> props;    // kObject
  int32_t additional = -1;            // kObject without props: the values' node; -1: no other keys ("{}" only)
  int32_t items = -1;                 // kArray
  int32_t min_items = 0, max_items = -1;  // kArray; -1: unbounded
  int32_t min_len = 0, max_len = -1;      // kString; -1: unbounded
  std::vector<std::string> literals;  // kLiterals, sorted, distinct
  std::vector<int32_t> alts;          // kAnyOf
  // Derived: bytes of the shortest text; for kObject the shortest text of the required properties from index i
  // on ("key":value each, without separators) and how many they are.
  int64_t min_bytes = 0;
  std::vector<int64_t> required_bytes_from;
  std::vector<int32_t> required_count_from;
};

/// The nodes of one schema; `root` is where a value starts.
struct JsonGrammarNodes {
  std::vector<JsonNode> nodes;
  int32_t root = -1;
  int32_t any_string = -1;  // the keys of objects without declared properties
  /// The concrete nodes a value of `node` may be (itself, or a kAnyOf's alternatives).
  const int32_t* starts(int32_t node, int32_t* n) const {
    const JsonNode& x = nodes[node];
    if (x.kind != JsonNodeKind::kAnyOf) return *n = 1, &self_[node];
    return *n = static_cast<int32_t>(x.alts.size()), x.alts.data();
  }
  std::vector<int32_t> self_;  // self_[i] == i
};

/// Compiles `schema_json` (JSON text) into *out; false + err ("#/path: problem").
bool compile_json_schema(const std::string& schema_json, JsonGrammarNodes* out, std::string* err);

}  // namespace saguaro
