// Next-token sampler: greedy, temperature, top-k, top-p, min-p, repetition penalty; seeded and allocation-free.
#pragma once

#include <cstdint>
#include <vector>

namespace saguaro {

/// Sampling settings. With top_k = 0, min_p = 0 and repetition_penalty = 1 this is exactly llama2.c's sampler.
struct SamplerConfig {
  float temperature = 1.0f;         // 0: greedy (argmax, first maximum wins)
  int32_t top_k = 0;                // 0: off
  float top_p = 0.9f;               // <= 0 or >= 1: off
  float min_p = 0.0f;               // 0: off; drop tokens with p < min_p * p_max
  float repetition_penalty = 1.0f;  // 1: off; CTRL-style on tokens already in the context
  uint64_t seed = 42;
};

/// Picks token ids from logits. All buffers are sized at construction; sample() does not allocate.
class Sampler {
 public:
  Sampler(int32_t vocab, const SamplerConfig& cfg);
  /// Resets the configuration and the RNG state to cfg.seed.
  void reset(const SamplerConfig& cfg);
  /// Samples from `logits` (modified in place); `context` holds the n_context tokens seen so far.
  int32_t sample(float* logits, const int32_t* context, int32_t n_context);
  /// llama2.c's xorshift RNG: a float in [0, 1).
  float random_f32();

 private:
  struct ProbIndex {
    float prob;
    int32_t index;
  };
  int32_t sample_top_p(const float* probs, float coin);

  int32_t vocab_;
  SamplerConfig cfg_;
  uint64_t state_;
  std::vector<ProbIndex> candidates_;
  std::vector<int32_t> order_;
  std::vector<uint32_t> seen_;  // token → stamp of the last context that contained it
  uint32_t stamp_ = 0;
};

/// Index of the largest of n values, the first one on ties.
int32_t argmax(const float* v, int32_t n);
/// In-place softmax as llama2.c computes it (max-subtracted expf, then divide by the sum).
void softmax(float* v, int32_t n);

}  // namespace saguaro
