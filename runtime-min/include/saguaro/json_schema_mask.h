// Constrained decoding to a JSON Schema: the schema compiled to a pushdown grammar over bytes, the vocabulary
// indexed as a trie of token bytes, and the per-generation matcher that masks the logits (docs/structured-output.md).
//
// Usage (what the C API does for options_json's "response_format"):
//
//   std::string err;
//   auto grammar = saguaro::JsonGrammar::from_response_format(R"({"type":"json_object"})", &err);
//   // or JsonGrammar::from_schema(R"({"type":"object","properties":{...},"required":[...]})", &err)
//   if (!grammar) fail(err);  // err names the problem: "schema #/properties/x: unsupported keyword \"pattern\""
//   std::vector<std::string> pieces;  std::vector<int32_t> stops;
//   engine.vocabulary(&pieces, &stops);                     // once per model; share the trie between requests
//   auto vocab = std::make_shared<const saguaro::TokenTrie>(pieces, stops);
//   saguaro::JsonMask mask(grammar, vocab);               // one per generation (holds the parse state, mask cache)
//   saguaro::GenerateConfig cfg;  cfg.constraint = &mask;  // Engine::generate then samples only allowed tokens
//   engine.generate(prompt, cfg, on_text, &stats, &err);   // ends when the JSON value is complete
//
// A tool call with a named function is the schema
//   {"type":"object","properties":{"name":{"const":"get_weather"},"arguments":PARAMETERS},
//    "required":["name","arguments"],"additionalProperties":false}
// where PARAMETERS is the function's "parameters" schema.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "saguaro/token_constraint.h"

namespace saguaro {

struct JsonGrammarNodes;  // the compiled schema (json_schema_grammar.h)

/// A JSON Schema compiled to the byte grammar of the compact JSON texts it generates (no insignificant
/// whitespace, properties in declared order); every text it accepts validates against the schema.
class JsonGrammar {
 public:
  /// Compiles a JSON Schema (JSON text); null + err naming the problem and where ("#/properties/a: ...").
  static std::shared_ptr<const JsonGrammar> from_schema(std::string_view schema_json, std::string* err);
  /// Compiles an OpenAI response_format: {"type":"json_object"}, {"type":"json_schema","json_schema":{"schema":
  /// S}} (or {"type":"json_schema","schema":S}); null + err. {"type":"text"} is no constraint: null, err empty.
  static std::shared_ptr<const JsonGrammar> from_response_format(std::string_view format_json, std::string* err);

  std::shared_ptr<const JsonGrammarNodes> nodes;
};

/// The vocabulary as a trie of token bytes, for masks computed by walking the grammar over shared prefixes.
class TokenTrie {
 public:
  /// `pieces[id]`: the bytes token id stands for ("" for tokens never generated inside a value: specials);
  /// `stop_ids`: the tokens that end generation (allowed once the value is complete).
  /// An engine's: Engine::vocabulary(&pieces, &stop_ids).
  TokenTrie(const std::vector<std::string>& pieces, std::vector<int32_t> stop_ids);

  struct Node {
    uint32_t first_child = 0, n_children = 0;  // children: nodes_[first_child ...), by byte
    uint32_t tok_begin = 0, tok_end = 0;       // the tokens of this subtree: order_[tok_begin, tok_end)
    uint32_t tok_here = 0;                     // order_[tok_begin, tok_begin + tok_here) end exactly here
    uint8_t byte = 0;                          // the edge into this node
    bool plain = false;                        // every byte of the subtree is printable ASCII but '"' and '\\'
  };
  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<int32_t>& order() const { return order_; }
  const std::vector<int32_t>& stop_ids() const { return stop_ids_; }
  int32_t vocab() const { return vocab_; }
  const std::string& piece(int32_t id) const { return pieces_[id]; }

 private:
  std::vector<Node> nodes_;     // nodes_[0]: the root (empty prefix)
  std::vector<int32_t> order_;  // token ids in trie order
  std::vector<std::string> pieces_;
  std::vector<int32_t> stop_ids_;
  int32_t vocab_ = 0;
};

/// One generation's matcher: the grammar's parse state over the text sampled so far, the token masks of the
/// states seen (cached by state), and the masking of the logits. Not thread-safe; reset() to reuse it.
class JsonMask : public TokenConstraint {
 public:
  /// `argument` names the request argument the grammar came from: mask()'s errors start with it.
  JsonMask(std::shared_ptr<const JsonGrammar> grammar, std::shared_ptr<const TokenTrie> vocab,
           std::string argument = "response_format");
  ~JsonMask() override;
  /// Back to the start of a value (the mask cache is kept).
  void reset();
  bool mask(float* logits, int32_t vocab, int32_t tokens_left, std::string* err) override;
  void accept(int32_t token) override;
  bool finished() const override;
  /// True when the text so far is a complete value (a number may still go on).
  bool complete() const;
  /// Feeds bytes directly (tests); false when the grammar rejects them (the state is then unchanged).
  bool feed(std::string_view bytes);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace saguaro
