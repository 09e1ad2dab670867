//===- baselines_test.cpp - Logistic regression optimality and entropy scores -----------===//
#include "probe/baselines.h"
#include "synthetic.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace saguaro::probe;
using namespace saguaro::probe::testing;

TEST(Baselines, LogisticRegressionReachesTheOptimum) {
  SyntheticOptions o;
  o.width = 12;
  o.per_family = 60;
  ProbeData data = make_synthetic(o);
  std::vector<int> train;
  for (size_t i = 0; i < data.samples.size(); i += 2)
    train.push_back(static_cast<int>(i));
  LogisticModel m;
  std::string error;
  const double l2 = 1.0;
  ASSERT_TRUE(train_logistic(data, train, l2, m, error)) << error;

  // Stationarity of sum_i BCE_i + l2/2 |w|^2, recomputed here from the definition:
  // sum_i (p_i - y_i) x_i + l2 w = 0 and sum_i (p_i - y_i) = 0.
  const int d = data.width;
  std::vector<double> gradient(d + 1, 0.0);
  for (int i : train) {
    std::vector<double> x = mean_pooled_hidden(data.samples[i], d);
    double z = m.b;
    for (int k = 0; k < d; ++k) {
      x[k] = (x[k] - m.mean[k]) / m.scale[k];
      z += m.w[k] * x[k];
    }
    double residual = 1 / (1 + std::exp(-z)) - (data.samples[i].wrong ? 1.0 : 0.0);
    for (int k = 0; k < d; ++k)
      gradient[k] += residual * x[k];
    gradient[d] += residual;
  }
  for (int k = 0; k < d; ++k)
    gradient[k] += l2 * m.w[k];
  for (int k = 0; k <= d; ++k)
    EXPECT_NEAR(gradient[k], 0.0, 1e-8) << "coordinate " << k;
  double norm = 0;
  for (double w : m.w)
    norm += w * w;
  EXPECT_GT(norm, 1e-4); // not the trivial solution
}

TEST(Baselines, LogisticRegressionNeedsBothClasses) {
  ProbeData data = make_synthetic(10);
  for (ProbeSample &s : data.samples)
    s.wrong = false;
  LogisticModel m;
  std::string error;
  EXPECT_FALSE(train_logistic(data, {0, 1, 2, 3}, 1.0, m, error));
  EXPECT_NE(error.find("only one class"), std::string::npos);
}

TEST(Baselines, EntropyScoresAndMeanPool) {
  ProbeSample s;
  s.entropy = {0.5f, 2.0f, 1.0f};
  s.hidden = {1, 2, 3, 4, 5, 9};
  EXPECT_DOUBLE_EQ(entropy_score(s, EntropyScore::first), 0.5);
  EXPECT_DOUBLE_EQ(entropy_score(s, EntropyScore::max), 2.0);
  EXPECT_DOUBLE_EQ(entropy_score(s, EntropyScore::mean), 3.5 / 3);
  EXPECT_EQ(mean_pooled_hidden(s, 2), (std::vector<double>{3.0, 5.0}));
}
