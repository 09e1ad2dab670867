// A hand-written model implementing the generated-model ABI: logits of the next token = row `token` of a table.
#pragma once

#include <cstdint>
#include <vector>

namespace saguaro::test {

constexpr int32_t kFakeVocab = 264;  // matches tiny_llama2c_tokenizer()
constexpr int32_t kFakeMaxSeq = 32;
constexpr int32_t kFakeChunk = 4;

/// The bigram table [vocab][vocab] the fake model expects as weight "bigram" (F32).
std::vector<float> fake_bigram_table();
/// How many times the fake model's prefill / decode have run (to check chunking).
extern int g_fake_prefill_calls, g_fake_decode_calls;

}  // namespace saguaro::test
