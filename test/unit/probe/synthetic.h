//===- synthetic.h - Synthetic probe data with a known, planted signal ------------------===//
//
// A stand-in for `saguaro probe collect` output whose truth we control:
// - wrong answers usually contain one "spike" token whose hidden state is shifted along a few
//   fixed dimensions (right answers occasionally do too), so a probe that attends to single
//   tokens can find the errors while a mean over tokens dilutes the spike;
// - each family shifts all its hidden states by its own offset, so held-out families are a
//   real distribution shift;
// - difficulty sets the error rate and leaves its own trace in the hidden state (the probe can
//   "know the question is hard", which the cell baseline accounts for);
// - token entropies rise weakly with the label.
// With signal = entropy_signal = 0 the labels are independent of every feature.
//
//===------------------------------------------------------------------------------------===//
#ifndef SAGUARO_TEST_UNIT_PROBE_SYNTHETIC_H
#define SAGUARO_TEST_UNIT_PROBE_SYNTHETIC_H

#include "probe/probe_data.h"

#include <cstdint>

namespace saguaro::probe::testing {

struct SyntheticOptions {
  int width = 32;
  int families = 6;
  int heldout_families = 2; // the last ones
  int per_family = 150;
  double signal = 1.0;         // spike strength (0 = none)
  double entropy_signal = 1.0; // how much wrong answers raise the entropy (0 = none)
  double spike_noise = 0.15;   // probability that the spike lies (present when right / absent when wrong)
  double family_shift = 0.3;   // standard deviation of each family's offset per dimension
  uint64_t seed = 7;
};

ProbeData make_synthetic(const SyntheticOptions &options);
/// The default synthetic data with `per_family` samples in each family.
ProbeData make_synthetic(int per_family);

} // namespace saguaro::probe::testing

#endif // SAGUARO_TEST_UNIT_PROBE_SYNTHETIC_H
