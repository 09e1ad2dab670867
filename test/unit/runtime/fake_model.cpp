// Bigram "model": greedy continuation of BOS is " a" b ab a, then BOS (stop); other tokens lead to EOS.
#include "fake_model.h"

#include <cstring>

#include "saguaro/model_abi.h"

namespace saguaro::test {

int g_fake_prefill_calls = 0, g_fake_decode_calls = 0;

std::vector<float> fake_bigram_table() {
  std::vector<float> t(static_cast<size_t>(kFakeVocab) * kFakeVocab);
  for (int32_t i = 0; i < kFakeVocab; ++i)
    for (int32_t j = 0; j < kFakeVocab; ++j) t[static_cast<size_t>(i) * kFakeVocab + j] = 0.01f * ((i * 7 + j * 13) % 17);
  auto set = [&](int32_t from, int32_t to, float v) { t[static_cast<size_t>(from) * kFakeVocab + to] = v; };
  for (int32_t i = 0; i < kFakeVocab; ++i) set(i, 2, 5.0f);
  set(1, 262, 10), set(262, 261, 10), set(261, 263, 10), set(263, 260, 10), set(260, 1, 10);
  return t;
}

namespace {

const WeightSpec kWeights[] = {{"bigram", DType::F32, uint64_t(kFakeVocab) * kFakeVocab * 4}};
const ModelSpec kSpec = {"fake-bigram", kFakeVocab, 8, 1, kFakeMaxSeq, kFakeChunk, 256, kFakeMaxSeq * 4, 1, kWeights, 0, 0};

// Writes the table row of `token` into `logits`; records the token in the KV cache like a real model would.
void forward_one(const ModelState& s, int32_t token, int32_t pos, float* logits) {
  const float* table = static_cast<const float*>(s.w[0]);
  std::memcpy(logits, table + static_cast<size_t>(token) * kFakeVocab, sizeof(float) * kFakeVocab);
  static_cast<float*>(s.kv)[pos] = static_cast<float>(token);
  s.arena[0] = static_cast<float>(pos);
}

}  // namespace
}  // namespace saguaro::test

const saguaro::ModelSpec& saguaro_model_spec() { return saguaro::test::kSpec; }

void saguaro_model_prefill(const saguaro::ModelState& s, const int32_t* tokens, int32_t n, int32_t pos0,
                           const float*, const uint8_t*, float* logits, bool all_logits) {
  using namespace saguaro::test;
  ++g_fake_prefill_calls;
  for (int32_t r = 0; r < n; ++r)
    if (all_logits || r == n - 1)
      forward_one(s, tokens[r], pos0 + r, all_logits ? logits + static_cast<size_t>(r) * kFakeVocab : logits);
}

void saguaro_model_decode(const saguaro::ModelState& s, int32_t token, int32_t pos, float* logits) {
  ++saguaro::test::g_fake_decode_calls;
  saguaro::test::forward_one(s, token, pos, logits);
}
