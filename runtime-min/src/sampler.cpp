// Sampler; the temperature/top-p path follows llama2.c run.c (sample, sample_mult, sample_topp) exactly.
#include "sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace saguaro {

int32_t argmax(const float* v, int32_t n) {
  int32_t best = 0;
  for (int32_t i = 1; i < n; ++i)
    if (v[i] > v[best]) best = i;
  return best;
}

void softmax(float* v, int32_t n) {
  float max_val = v[0];
  for (int32_t i = 1; i < n; ++i) max_val = std::max(max_val, v[i]);
  float sum = 0.0f;
  for (int32_t i = 0; i < n; ++i) {
    v[i] = std::exp(v[i] - max_val);
    sum += v[i];
  }
  for (int32_t i = 0; i < n; ++i) v[i] /= sum;
}

Sampler::Sampler(int32_t vocab, const SamplerConfig& cfg)
    : vocab_(vocab), candidates_(static_cast<size_t>(vocab)), order_(static_cast<size_t>(vocab)),
      seen_(static_cast<size_t>(vocab), 0) {
  reset(cfg);
}

void Sampler::reset(const SamplerConfig& cfg) {
  cfg_ = cfg;
  state_ = cfg.seed;
}

float Sampler::random_f32() {
  state_ ^= state_ >> 12;
  state_ ^= state_ << 25;
  state_ ^= state_ >> 27;
  const uint32_t r = static_cast<uint32_t>((state_ * 0x2545F4914F6CDD1Dull) >> 32);
  return static_cast<float>(r >> 8) / 16777216.0f;
}

int32_t Sampler::sample_top_p(const float* probs, float coin) {
  // Tokens below the cutoff cannot be in the nucleus; dropping them first keeps the sort short.
  const float cutoff = (1.0f - cfg_.top_p) / static_cast<float>(vocab_ - 1);
  int32_t n0 = 0;
  for (int32_t i = 0; i < vocab_; ++i)
    if (probs[i] >= cutoff) candidates_[n0++] = {probs[i], i};
  // Descending probability, lower id first on ties: the order of a stable sort, without its temporary buffer.
  std::sort(candidates_.begin(), candidates_.begin() + n0, [](const ProbIndex& a, const ProbIndex& b) {
    return a.prob > b.prob || (a.prob == b.prob && a.index < b.index);
  });
  float cumulative = 0.0f;
  int32_t last = n0 - 1;
  for (int32_t i = 0; i < n0; ++i) {
    cumulative += candidates_[i].prob;
    if (cumulative > cfg_.top_p) {
      last = i;
      break;
    }
  }
  const float r = coin * cumulative;
  float cdf = 0.0f;
  for (int32_t i = 0; i <= last; ++i) {
    cdf += candidates_[i].prob;
    if (r < cdf) return candidates_[i].index;
  }
  return candidates_[last].index;
}

int32_t Sampler::sample(float* logits, const int32_t* context, int32_t n_context) {
  if (cfg_.repetition_penalty != 1.0f && n_context > 0) {
    ++stamp_;
    for (int32_t i = 0; i < n_context; ++i) {
      const int32_t t = context[i];
      if (t < 0 || t >= vocab_ || seen_[t] == stamp_) continue;
      seen_[t] = stamp_;
      logits[t] = logits[t] > 0 ? logits[t] / cfg_.repetition_penalty : logits[t] * cfg_.repetition_penalty;
    }
  }
  if (cfg_.temperature == 0.0f) return argmax(logits, vocab_);
  for (int32_t i = 0; i < vocab_; ++i) logits[i] /= cfg_.temperature;
  if (cfg_.top_k > 0 && cfg_.top_k < vocab_) {
    // Keep exactly k tokens: the largest logits, lower ids first on ties.
    for (int32_t i = 0; i < vocab_; ++i) order_[i] = i;
    auto better = [logits](int32_t a, int32_t b) { return logits[a] > logits[b] || (logits[a] == logits[b] && a < b); };
    std::nth_element(order_.begin(), order_.begin() + cfg_.top_k, order_.end(), better);
    for (int32_t i = cfg_.top_k; i < vocab_; ++i) logits[order_[i]] = -std::numeric_limits<float>::infinity();
  }
  softmax(logits, vocab_);
  if (cfg_.min_p > 0.0f) {
    float max_p = 0.0f, sum = 0.0f;
    for (int32_t i = 0; i < vocab_; ++i) max_p = std::max(max_p, logits[i]);
    for (int32_t i = 0; i < vocab_; ++i) {
      if (logits[i] < cfg_.min_p * max_p) logits[i] = 0.0f;
      sum += logits[i];
    }
    for (int32_t i = 0; i < vocab_; ++i) logits[i] /= sum;
  }
  const float coin = random_f32();
  if (cfg_.top_p <= 0.0f || cfg_.top_p >= 1.0f) {
    float cdf = 0.0f;
    for (int32_t i = 0; i < vocab_; ++i) {
      cdf += logits[i];
      if (coin < cdf) return i;
    }
    return vocab_ - 1;
  }
  return sample_top_p(logits, coin);
}

}  // namespace saguaro
