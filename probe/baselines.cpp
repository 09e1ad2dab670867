//===- baselines.cpp - Logistic regression and token-entropy scores ---------------------===//
#include "probe/baselines.h"

#include "probe/trainer.h"

#include <algorithm>
#include <cmath>

namespace saguaro::probe {
namespace {

/// Solves A x = rhs for symmetric positive definite A (n x n, row-major) by Cholesky; false if
/// A is not numerically positive definite.
bool cholesky_solve(std::vector<double> a, std::vector<double> rhs, int n, std::vector<double> &x) {
  for (int j = 0; j < n; ++j) {
    double diag = a[size_t(j) * n + j];
    for (int k = 0; k < j; ++k)
      diag -= a[size_t(j) * n + k] * a[size_t(j) * n + k];
    if (!(diag > 0))
      return false;
    diag = std::sqrt(diag);
    a[size_t(j) * n + j] = diag;
    for (int i = j + 1; i < n; ++i) {
      double v = a[size_t(i) * n + j];
      for (int k = 0; k < j; ++k)
        v -= a[size_t(i) * n + k] * a[size_t(j) * n + k];
      a[size_t(i) * n + j] = v / diag;
    }
  }
  for (int i = 0; i < n; ++i) { // L y = rhs
    for (int k = 0; k < i; ++k)
      rhs[i] -= a[size_t(i) * n + k] * rhs[k];
    rhs[i] /= a[size_t(i) * n + i];
  }
  for (int i = n - 1; i >= 0; --i) { // L^T x = y
    for (int k = i + 1; k < n; ++k)
      rhs[i] -= a[size_t(k) * n + i] * rhs[k];
    rhs[i] /= a[size_t(i) * n + i];
  }
  x = std::move(rhs);
  return true;
}

std::vector<double> standardized(const LogisticModel &m, const ProbeSample &s, int d) {
  std::vector<double> x = mean_pooled_hidden(s, d);
  for (int i = 0; i < d; ++i)
    x[i] = (x[i] - m.mean[i]) / m.scale[i];
  return x;
}

/// log(1 + exp(z)) without overflow.
double softplus(double z) { return z > 0 ? z + std::log1p(std::exp(-z)) : std::log1p(std::exp(z)); }

} // namespace

std::vector<double> mean_pooled_hidden(const ProbeSample &s, int d) {
  std::vector<double> out(d, 0.0);
  for (int t = 0; t < s.n_tokens(); ++t)
    for (int i = 0; i < d; ++i)
      out[i] += s.hidden[size_t(t) * d + i];
  for (double &v : out)
    v /= s.n_tokens();
  return out;
}

bool train_logistic(const ProbeData &data, const std::vector<int> &train, double l2, LogisticModel &model,
                    std::string &error) {
  const int d = data.width, n = d + 1; // the last coordinate is the bias
  int wrong = 0;
  for (int i : train)
    wrong += data.samples[i].wrong;
  if (wrong == 0 || wrong == int(train.size())) {
    error = "logistic regression: the training split has only one class";
    return false;
  }
  LogisticModel m;
  m.mean.assign(d, 0.0);
  m.scale.assign(d, 0.0);
  std::vector<std::vector<double>> pooled;
  for (int i : train)
    pooled.push_back(mean_pooled_hidden(data.samples[i], d));
  for (const auto &x : pooled)
    for (int k = 0; k < d; ++k)
      m.mean[k] += x[k];
  for (double &v : m.mean)
    v /= double(pooled.size());
  for (const auto &x : pooled)
    for (int k = 0; k < d; ++k)
      m.scale[k] += (x[k] - m.mean[k]) * (x[k] - m.mean[k]);
  for (double &v : m.scale) {
    v = std::sqrt(v / double(pooled.size()));
    if (v < 1e-12) // a constant feature: leave it centred at zero
      v = 1.0;
  }
  // Design matrix with a trailing 1 for the bias.
  std::vector<std::vector<double>> x(pooled.size(), std::vector<double>(n, 1.0));
  std::vector<double> y(pooled.size());
  for (size_t r = 0; r < pooled.size(); ++r) {
    for (int k = 0; k < d; ++k)
      x[r][k] = (pooled[r][k] - m.mean[k]) / m.scale[k];
    y[r] = data.samples[train[r]].wrong ? 1.0 : 0.0;
  }
  auto objective = [&](const std::vector<double> &theta) {
    double j = 0;
    for (size_t r = 0; r < x.size(); ++r) {
      double z = 0;
      for (int k = 0; k < n; ++k)
        z += x[r][k] * theta[k];
      j += softplus(z) - y[r] * z;
    }
    for (int k = 0; k < d; ++k)
      j += 0.5 * l2 * theta[k] * theta[k];
    return j;
  };

  std::vector<double> theta(n, 0.0), grad(n), hess(size_t(n) * n), step;
  double current = objective(theta);
  for (m.iterations = 0; m.iterations < 100; ++m.iterations) {
    std::fill(grad.begin(), grad.end(), 0.0);
    std::fill(hess.begin(), hess.end(), 0.0);
    for (size_t r = 0; r < x.size(); ++r) {
      double z = 0;
      for (int k = 0; k < n; ++k)
        z += x[r][k] * theta[k];
      double p = sigmoid(z), w = p * (1.0 - p);
      for (int k = 0; k < n; ++k) {
        grad[k] += (p - y[r]) * x[r][k];
        for (int c = 0; c <= k; ++c)
          hess[size_t(k) * n + c] += w * x[r][k] * x[r][c];
      }
    }
    for (int k = 0; k < n; ++k)
      for (int c = 0; c < k; ++c)
        hess[size_t(c) * n + k] = hess[size_t(k) * n + c];
    for (int k = 0; k < d; ++k) {
      grad[k] += l2 * theta[k];
      hess[size_t(k) * n + k] += l2;
    }
    hess[size_t(n) * n - 1] += 1e-12; // keeps the bias direction definite on separable data
    if (!cholesky_solve(hess, grad, n, step)) {
      error = "logistic regression: the Hessian is not positive definite";
      return false;
    }
    // Backtracking: halve the Newton step until the objective does not increase.
    double t = 1.0, next = 0;
    std::vector<double> candidate(n);
    for (int halvings = 0; halvings < 40; ++halvings, t *= 0.5) {
      for (int k = 0; k < n; ++k)
        candidate[k] = theta[k] - t * step[k];
      next = objective(candidate);
      if (next <= current)
        break;
    }
    double largest = 0;
    for (int k = 0; k < n; ++k)
      largest = std::max(largest, std::abs(t * step[k]));
    theta = candidate;
    current = next;
    if (largest < 1e-10)
      break;
  }
  m.w.assign(theta.begin(), theta.begin() + d);
  m.b = theta[d];
  model = std::move(m);
  return true;
}

std::vector<double> logistic_scores(const LogisticModel &m, const ProbeData &data, const std::vector<int> &indices) {
  std::vector<double> out;
  for (int i : indices) {
    std::vector<double> x = standardized(m, data.samples[i], data.width);
    double z = m.b;
    for (int k = 0; k < data.width; ++k)
      z += m.w[k] * x[k];
    out.push_back(sigmoid(z));
  }
  return out;
}

double entropy_score(const ProbeSample &s, EntropyScore kind) {
  switch (kind) {
  case EntropyScore::first:
    return s.entropy.front();
  case EntropyScore::max:
    return *std::max_element(s.entropy.begin(), s.entropy.end());
  case EntropyScore::mean:
    break;
  }
  double sum = 0;
  for (float e : s.entropy)
    sum += e;
  return sum / s.n_tokens();
}

} // namespace saguaro::probe
