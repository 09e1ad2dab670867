// The JSON Schema mask's cost per token over a synthetic vocabulary of Gemma's size.
#include "bench_json_mask.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "saguaro/json_schema_mask.h"

namespace saguaro {
namespace {

double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

struct Rng {
  uint64_t state = 0x5eed;
  uint32_t next() { return static_cast<uint32_t>((state = state * 6364136223846793005ull + 1442695040888963407ull) >> 33); }
  uint32_t below(uint32_t n) { return next() % n; }
};

void append_utf8(std::string* s, uint32_t cp) {
  if (cp < 0x80) {
    s->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    s->push_back(static_cast<char>(0xC0 | cp >> 6)), s->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    s->push_back(static_cast<char>(0xE0 | cp >> 12)), s->push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3F)));
    s->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    s->push_back(static_cast<char>(0xF0 | cp >> 18)), s->push_back(static_cast<char>(0x80 | (cp >> 12 & 0x3F)));
    s->push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3F))), s->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Every byte, then tokens drawn from the kinds a byte-level BPE vocabulary holds; the last id is the stop token.
std::vector<std::string> synthetic_vocabulary(int32_t vocab) {
  Rng rng;
  std::vector<std::string> pieces;
  for (int b = 0; b < 256; ++b) pieces.push_back(std::string(1, static_cast<char>(b)));
  const std::string punct = "\"{}[]:,.-_'()\\/ \n";
  while (static_cast<int32_t>(pieces.size()) < vocab - 1) {
    std::string t;
    const uint32_t kind = rng.below(100);
    if (kind < 55) {
      if (rng.below(10) < 6) t.push_back(' ');
      const uint32_t len = 2 + rng.below(9);
      for (uint32_t i = 0; i < len; ++i) t.push_back(static_cast<char>((i == 0 && rng.below(10) == 0 ? 'A' : 'a') + rng.below(26)));
    } else if (kind < 65) {
      for (uint32_t i = 0, len = 1 + rng.below(3); i < len; ++i) t.push_back(static_cast<char>('0' + rng.below(10)));
    } else if (kind < 80) {
      for (uint32_t i = 0, len = 1 + rng.below(4); i < len; ++i) t.push_back(punct[rng.below(punct.size())]);
    } else if (kind < 90) {
      for (uint32_t i = 0, len = 1 + rng.below(16); i < len; ++i) t.push_back(rng.below(4) == 0 ? '\n' : ' ');
    } else {
      static const uint32_t kStarts[] = {0xC0, 0x400, 0x4E00, 0x3040, 0x1F600};
      const uint32_t start = kStarts[rng.below(5)];
      for (uint32_t i = 0, len = 1 + rng.below(3); i < len; ++i) append_utf8(&t, start + rng.below(0x60));
    }
    pieces.push_back(t);
  }
  pieces.push_back("");
  return pieces;
}

constexpr const char* kToolCallSchema = R"({"type":"object","properties":{
  "name":{"enum":["get_weather","search_web","send_email"]},
  "arguments":{"type":"object","properties":{
    "city":{"type":"string","maxLength":40},"days":{"type":"integer"},"units":{"enum":["metric","imperial"]},
    "tags":{"type":"array","items":{"type":"string"},"maxItems":4},"urgent":{"type":"boolean"},
    "note":{"type":"string"}},"required":["city","days"]}},
  "required":["name","arguments"],"additionalProperties":false})";

}  // namespace

JsonMaskCost measure_json_mask(int32_t vocab, int32_t tokens) {
  JsonMaskCost cost;
  cost.vocab = vocab;
  const std::vector<std::string> pieces = synthetic_vocabulary(vocab);
  const int32_t stop = vocab - 1;
  double t0 = now_ms();
  auto trie = std::make_shared<TokenTrie>(pieces, std::vector<int32_t>{stop});
  cost.trie_build_ms = now_ms() - t0;
  std::string err;
  auto grammar = JsonGrammar::from_schema(kToolCallSchema, &err);
  JsonMask mask(grammar, trie);
  std::vector<float> logits(static_cast<size_t>(vocab));
  std::vector<int32_t> allowed;
  Rng rng;
  constexpr int32_t kValueBudget = 160;  // max_tokens of each value: the budget closes it by then
  int32_t left = kValueBudget;
  double total = 0;
  for (int32_t i = 0; i < tokens; ++i) {
    std::fill(logits.begin(), logits.end(), 0.0f);
    t0 = now_ms();
    const bool ok = mask.mask(logits.data(), vocab, left, &err);
    const double ms = now_ms() - t0;
    total += ms, cost.max_ms = std::max(cost.max_ms, ms);
    ++cost.tokens;
    if (!ok) break;
    allowed.clear();
    for (int32_t id = 0; id < vocab; ++id)
      if (std::isfinite(logits[id])) allowed.push_back(id);
    const int32_t t = allowed[rng.below(static_cast<uint32_t>(allowed.size()))];
    if (t != stop) mask.accept(t), --left;
    if (t == stop || mask.finished() || left == 0) mask.reset(), left = kValueBudget;
  }
  cost.mean_ms = total / std::max(cost.tokens, 1);
  return cost;
}

}  // namespace saguaro
