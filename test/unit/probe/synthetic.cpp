//===- synthetic.cpp - Synthetic probe data with a known, planted signal ----------------===//
#include "synthetic.h"

#include "probe/rng.h"

#include <cmath>

namespace saguaro::probe::testing {

ProbeData make_synthetic(const SyntheticOptions &o) {
  ProbeRng rng(o.seed);
  ProbeData data;
  data.model = "synthetic";
  data.width = o.width;
  data.tap_layer = 4;
  const int d = o.width;
  for (int f = 0; f < o.families; ++f) {
    std::vector<double> family_offset(d);
    for (double &v : family_offset)
      v = o.family_shift * rng.normal();
    for (int k = 0; k < o.per_family; ++k) {
      ProbeSample s;
      s.family = "family" + std::to_string(f);
      s.id = s.family + "/" + std::to_string(k);
      s.heldout = f >= o.families - o.heldout_families;
      s.difficulty = static_cast<int>(rng.below(4));
      s.guessable = rng.uniform() < 0.2;
      s.wrong = rng.uniform() < 0.15 + 0.2 * s.difficulty;
      s.question = "q" + std::to_string(k);
      s.answer = "a" + std::to_string(k);
      int n_tokens = 4 + static_cast<int>(rng.below(20)); // answers of 4-23 tokens
      bool spike = s.wrong != (rng.uniform() < o.spike_noise);
      int spike_at = static_cast<int>(rng.below(n_tokens));
      for (int t = 0; t < n_tokens; ++t) {
        for (int i = 0; i < d; ++i) {
          double v = rng.normal() + family_offset[i];
          if (i == d - 1)
            v += 0.5 * s.difficulty; // "knows the question is hard"
          if (spike && t == spike_at && i < 4)
            v += 2.5 * o.signal;
          s.hidden.push_back(static_cast<float>(v));
        }
        double entropy = std::abs(0.8 + 0.5 * rng.normal()) + (s.wrong ? 0.08 * o.entropy_signal : 0.0);
        s.entropy.push_back(static_cast<float>(entropy));
      }
      data.samples.push_back(std::move(s));
    }
  }
  return data;
}

ProbeData make_synthetic(int per_family) {
  SyntheticOptions o;
  o.per_family = per_family;
  return make_synthetic(o);
}

} // namespace saguaro::probe::testing
