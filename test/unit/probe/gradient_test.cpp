//===- gradient_test.cpp - Hand-written backward pass vs central finite differences ----===//
#include "probe/probe_model.h"
#include "probe/trainer.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace saguaro::probe;

namespace {

/// Checks d(logit)/d(params) of `net` at random parameters, with and without dropout masks.
void check_gradient(PoolKind pool, bool with_dropout) {
  ProbeShape shape{6, 5, 7, 4};
  ProbeNet net(shape, pool);
  ProbeRng rng(pool == PoolKind::attention ? 3 : 4);
  std::vector<double> params(net.layout().total);
  for (double &p : params)
    p = 0.6 * rng.normal();
  for (int i = 0; i < shape.d; ++i)
    params[net.layout().gamma + i] = 1.0 + 0.2 * rng.normal();
  const int tokens = 4;
  std::vector<float> hidden(tokens * shape.d);
  for (float &v : hidden)
    v = static_cast<float>(rng.normal() + 0.3);
  DropoutMasks masks;
  if (with_dropout) {
    for (int i = 0; i < shape.m1; ++i)
      masks.m1.push_back(i == 0 ? 0.0 : 1.5);
    for (int i = 0; i < shape.m2; ++i)
      masks.m2.push_back(i == 1 ? 0.0 : 2.0);
  }

  ForwardCache cache;
  net.forward(params.data(), hidden.data(), tokens, &masks, cache);
  std::vector<double> grad(params.size(), 0.0);
  const double dlogit = 0.7; // an arbitrary upstream gradient
  net.backward(params.data(), hidden.data(), tokens, cache, &masks, dlogit, grad.data());

  const double h = 1e-6;
  int nonzero = 0;
  for (size_t k = 0; k < params.size(); ++k) {
    std::vector<double> plus = params, minus = params;
    plus[k] += h;
    minus[k] -= h;
    double numeric = dlogit *
                     (net.forward(plus.data(), hidden.data(), tokens, &masks, cache) -
                      net.forward(minus.data(), hidden.data(), tokens, &masks, cache)) /
                     (2 * h);
    EXPECT_NEAR(grad[k], numeric, 1e-7 + 1e-6 * std::abs(numeric)) << "parameter " << k;
    nonzero += grad[k] != 0.0;
  }
  // Guard against a vacuous pass (everything dead behind ReLU).
  EXPECT_GT(nonzero, static_cast<int>(params.size()) / 3);
}

} // namespace

TEST(Gradient, AttentionProbe) { check_gradient(PoolKind::attention, false); }
TEST(Gradient, AttentionProbeWithDropout) { check_gradient(PoolKind::attention, true); }
TEST(Gradient, MeanPoolBaseline) { check_gradient(PoolKind::mean, false); }
TEST(Gradient, MeanPoolBaselineWithDropout) { check_gradient(PoolKind::mean, true); }

TEST(Gradient, WeightedBinaryCrossEntropy) {
  for (double logit : {-30.0, -2.0, -0.1, 0.0, 0.4, 3.0, 30.0})
    for (bool wrong : {false, true}) {
      double d = 0, unused = 0;
      double loss = weighted_bce(logit, wrong, 2.5, &d);
      double h = 1e-5;
      double numeric =
          (weighted_bce(logit + h, wrong, 2.5, &unused) - weighted_bce(logit - h, wrong, 2.5, &unused)) / (2 * h);
      EXPECT_NEAR(d, numeric, 1e-7) << "logit " << logit << " wrong " << wrong;
      // The definition, where it is representable.
      double p = 1 / (1 + std::exp(-logit));
      if (std::abs(logit) < 20) {
        EXPECT_NEAR(loss, wrong ? -2.5 * std::log(p) : -std::log(1 - p), 1e-12);
      }
    }
}
