//===- optimizer_split_test.cpp - AdamW's first steps and the validation split ----------===//
#include "probe/adam.h"
#include "probe/split.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace saguaro::probe;

TEST(AdamW, FirstStepsFollowTheFormula) {
  // After bias correction Adam's first step is lr * g / (|g| + eps); decoupled decay shrinks only
  // the masked parameters, by lr * wd * p, independently of the gradient.
  AdamOptions o;
  o.lr = 0.1;
  o.weight_decay = 0.5;
  AdamW adam(3, o, {true, false, true});
  std::vector<double> p = {1.0, 1.0, -2.0};
  adam.step(p, {0.5, -4.0, 0.0});
  EXPECT_NEAR(p[0], 1.0 - 0.1 * 0.5 * 1.0 - 0.1 * 0.5 / (0.5 + 1e-8), 1e-12);
  EXPECT_NEAR(p[1], 1.0 + 0.1 * 4.0 / (4.0 + 1e-8), 1e-12);
  EXPECT_NEAR(p[2], -2.0 + 0.1 * 0.5 * 2.0, 1e-12); // zero gradient: decay only

  // Second step, recomputed from the moment recurrences.
  double p0 = p[0];
  adam.step(p, {1.5, 0.0, 0.0});
  double m = 0.9 * (0.1 * 0.5) + 0.1 * 1.5, v = 0.999 * (0.001 * 0.25) + 0.001 * 2.25;
  double update = (m / (1 - 0.81)) / (std::sqrt(v / (1 - 0.999 * 0.999)) + 1e-8);
  EXPECT_NEAR(p[0], p0 - 0.1 * 0.5 * p0 - 0.1 * update, 1e-12);
}

TEST(Split, ValidationFractionHoldsOnSequentialIds) {
  // Ids that differ only in their last digits must still spread evenly (FNV-1a alone does not).
  for (uint64_t seed : {1ull, 2ull, 12345ull}) {
    int in_val = 0;
    const int n = 20000;
    for (int k = 0; k < n; ++k)
      in_val += in_validation("family/" + std::to_string(k), seed, 0.2);
    EXPECT_NEAR(double(in_val) / n, 0.2, 0.012) << "seed " << seed; // about 4 standard deviations
  }
}

TEST(Split, HeldOutFamiliesStayHeldOutAndRolesDependOnTheSeed) {
  ProbeData data;
  data.width = 1;
  for (int k = 0; k < 200; ++k) {
    ProbeSample s;
    s.id = "s" + std::to_string(k);
    s.heldout = k % 4 == 0;
    data.samples.push_back(s);
  }
  std::vector<SplitRole> a = split_samples(data, 1, 0.3), b = split_samples(data, 2, 0.3);
  int differ = 0;
  for (int k = 0; k < 200; ++k) {
    EXPECT_EQ(a[k] == SplitRole::heldout, data.samples[k].heldout);
    EXPECT_EQ(b[k] == SplitRole::heldout, data.samples[k].heldout);
    differ += a[k] != b[k];
  }
  EXPECT_GT(differ, 20);
  EXPECT_EQ(a, split_samples(data, 1, 0.3));
}
