// `--bench`'s measure of constrained decoding: what the JSON Schema token mask costs per generated token over a
// vocabulary of Gemma's size, to set beside the bundle's decode step.
#pragma once

#include <cstdint>

namespace saguaro {

struct JsonMaskCost {
  int32_t vocab = 0;      // tokens in the synthetic vocabulary
  int32_t tokens = 0;     // masks measured
  double trie_build_ms = 0;  // indexing the vocabulary (once per model)
  double mean_ms = 0;     // JsonMask::mask per token, the logits' masking included
  double max_ms = 0;      // the slowest token (a state first seen: its mask is computed, not cached)
};

/// Gemma's vocabulary size (262,144 tokens).
constexpr int32_t kGemmaVocab = 262144;

/// Builds a seeded synthetic vocabulary of `vocab` byte strings shaped like a byte-level BPE vocabulary's (every
/// single byte, words with and without a leading space, digits, punctuation and JSON fragments, whitespace runs,
/// UTF-8 text), then generates values of a tool-call-like schema for `tokens` tokens, each sampled uniformly among
/// the allowed ones, timing every mask.
JsonMaskCost measure_json_mask(int32_t vocab, int32_t tokens);

}  // namespace saguaro
