//===- auroc_test.cpp - AUROC against its pairwise definition ---------------------------===//
#include "probe/auroc.h"
#include "probe/rng.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace saguaro::probe;

namespace {

/// The definition: P(score of a positive > score of a negative) + 0.5 P(tie), over all pairs.
double pairwise_auroc(const std::vector<double> &s, const std::vector<bool> &y) {
  double wins = 0, pairs = 0;
  for (size_t i = 0; i < s.size(); ++i)
    for (size_t j = 0; j < s.size(); ++j)
      if (y[i] && !y[j]) {
        pairs += 1;
        wins += s[i] > s[j] ? 1.0 : s[i] == s[j] ? 0.5 : 0.0;
      }
  return wins / pairs;
}

} // namespace

TEST(Auroc, PerfectReversedAndTied) {
  EXPECT_DOUBLE_EQ(auroc({0.1, 0.2, 0.8, 0.9}, {false, false, true, true}), 1.0);
  EXPECT_DOUBLE_EQ(auroc({0.9, 0.8, 0.2, 0.1}, {false, false, true, true}), 0.0);
  EXPECT_DOUBLE_EQ(auroc({0.5, 0.5, 0.5, 0.5}, {false, true, false, true}), 0.5);
  // One tie across the classes counts one half: pairs (p=0.5 vs n=0.5) -> 0.5, (0.9 vs 0.5) -> 1,
  // (0.5 vs 0.1) -> 1, (0.9 vs 0.1) -> 1: (0.5 + 3) / 4.
  EXPECT_DOUBLE_EQ(auroc({0.1, 0.5, 0.5, 0.9}, {false, false, true, true}), 3.5 / 4);
}

TEST(Auroc, UndefinedWithOneClass) {
  EXPECT_TRUE(std::isnan(auroc({0.1, 0.2}, {true, true})));
  EXPECT_TRUE(std::isnan(auroc({0.1, 0.2}, {false, false})));
  EXPECT_TRUE(std::isnan(auroc({}, {})));
}

TEST(Auroc, MatchesPairwiseDefinitionWithManyTies) {
  ProbeRng rng(11);
  for (int trial = 0; trial < 20; ++trial) {
    int n = 5 + static_cast<int>(rng.below(200));
    std::vector<double> s;
    std::vector<bool> y;
    for (int i = 0; i < n; ++i) {
      s.push_back(static_cast<double>(rng.below(7))); // few distinct values: many ties
      y.push_back(rng.uniform() < 0.3);
    }
    y[0] = true;
    y[1] = false;
    EXPECT_NEAR(auroc(s, y), pairwise_auroc(s, y), 1e-12) << "trial " << trial;
  }
}
