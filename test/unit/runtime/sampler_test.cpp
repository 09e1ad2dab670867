// Sampler: greedy ties, determinism, and the effect of top-k / top-p / min-p / repetition penalty.
#include "sampler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

namespace saguaro {
namespace {

std::vector<float> logits_of(const std::vector<float>& probs) {
  std::vector<float> l;
  for (float p : probs) l.push_back(std::log(p));
  return l;
}

// The set of ids drawn over many samples.
std::set<int32_t> support(const SamplerConfig& cfg, const std::vector<float>& logits, int draws = 2000) {
  Sampler s(static_cast<int32_t>(logits.size()), cfg);
  std::set<int32_t> seen;
  for (int i = 0; i < draws; ++i) {
    std::vector<float> l = logits;
    seen.insert(s.sample(l.data(), nullptr, 0));
  }
  return seen;
}

TEST(Sampler, GreedyTakesFirstMaximum) {
  SamplerConfig c;
  c.temperature = 0;
  Sampler s(4, c);
  std::vector<float> l = {1, 3, 3, 2};
  EXPECT_EQ(s.sample(l.data(), nullptr, 0), 1);
}

TEST(Sampler, SameSeedSameSequence) {
  const std::vector<float> base = logits_of({0.1f, 0.2f, 0.3f, 0.25f, 0.15f});
  SamplerConfig c;
  c.temperature = 1.0f;
  c.top_p = 0.0f;
  c.seed = 1234;
  Sampler a(5, c), b(5, c);
  std::vector<int32_t> sa, sb;
  for (int i = 0; i < 50; ++i) {
    std::vector<float> l1 = base, l2 = base;
    sa.push_back(a.sample(l1.data(), nullptr, 0));
    sb.push_back(b.sample(l2.data(), nullptr, 0));
  }
  EXPECT_EQ(sa, sb);
  EXPECT_GT(std::set<int32_t>(sa.begin(), sa.end()).size(), 2u);
  c.seed = 99;
  Sampler d(5, c);
  std::vector<int32_t> sd;
  for (int i = 0; i < 50; ++i) {
    std::vector<float> l = base;
    sd.push_back(d.sample(l.data(), nullptr, 0));
  }
  EXPECT_NE(sa, sd);
}

TEST(Sampler, XorshiftMatchesLlama2c) {
  // run.c: state ^= state>>12; state ^= state<<25; state ^= state>>27; (state*0x2545F4914F6CDD1D)>>32; >>8 / 2^24.
  SamplerConfig c;
  c.seed = 42;
  Sampler s(2, c);
  uint64_t st = 42;
  for (int i = 0; i < 5; ++i) {
    st ^= st >> 12;
    st ^= st << 25;
    st ^= st >> 27;
    const float want = static_cast<float>(static_cast<uint32_t>((st * 0x2545F4914F6CDD1Dull) >> 32) >> 8) / 16777216.0f;
    EXPECT_EQ(s.random_f32(), want);
  }
}

TEST(Sampler, TopKKeepsKLargest) {
  SamplerConfig c;
  c.top_k = 2;
  c.top_p = 0;
  EXPECT_EQ(support(c, logits_of({0.3f, 0.1f, 0.35f, 0.25f})), (std::set<int32_t>{0, 2}));
}

TEST(Sampler, TopPKeepsNucleus) {
  SamplerConfig c;
  c.top_p = 0.5f;  // 0.4 alone is not > 0.5, 0.4 + 0.3 is
  EXPECT_EQ(support(c, logits_of({0.1f, 0.4f, 0.3f, 0.2f})), (std::set<int32_t>{1, 2}));
}

TEST(Sampler, MinPDropsUnlikelyTokens) {
  SamplerConfig c;
  c.top_p = 0;
  c.min_p = 0.5f;  // keep p >= 0.5 * 0.4
  EXPECT_EQ(support(c, logits_of({0.05f, 0.4f, 0.3f, 0.25f})), (std::set<int32_t>{1, 2, 3}));
}

TEST(Sampler, RepetitionPenaltyChangesGreedyChoice) {
  SamplerConfig c;
  c.temperature = 0;
  c.repetition_penalty = 2.0f;
  Sampler s(3, c);
  const int32_t ctx[] = {0, 0, 2};
  std::vector<float> l = {3.0f, 2.0f, -1.0f};  // 0 → 1.5 (penalised once), 2 → -2
  EXPECT_EQ(s.sample(l.data(), ctx, 3), 1);
  EXPECT_FLOAT_EQ(l[0], 1.5f);
  EXPECT_FLOAT_EQ(l[2], -2.0f);
}

}  // namespace
}  // namespace saguaro
