//===- probe_head.cpp - The reference float computation of the trained probe -----------===//
//
// Deliberately simple loops, one per step of docs/probe.md, summing left to right in float,
// so a compiled kernel can mirror it op for op.
//
//===------------------------------------------------------------------------------------===//
#include "probe/probe_head.h"

#include <algorithm>
#include <cmath>

namespace saguaro::probe {
namespace {

/// out[o] = sum_i w[o][i] * in[i] + b[o], then ReLU.
void linear_relu(const float *w, const float *b, const float *in, int n_in, int n_out, float *out) {
  for (int o = 0; o < n_out; ++o) {
    float acc = 0.0f;
    for (int i = 0; i < n_in; ++i)
      acc += w[size_t(o) * n_in + i] * in[i];
    out[o] = std::max(acc + b[o], 0.0f);
  }
}

} // namespace

float probe_p_wrong(const ProbeWeights &probe, const float *hidden, int n_tokens) {
  const ProbeShape &s = probe.shape;
  const ProbeLayout l = probe_layout(s, PoolKind::attention);
  const float *p = probe.params.data();
  const int d = s.d, h = s.h;
  std::vector<float> y(d), z(size_t(n_tokens) * h), score(n_tokens);
  const float score_scale = 1.0f / std::sqrt(float(h));

  for (int t = 0; t < n_tokens; ++t) {
    // 1. LayerNorm with the biased variance.
    const float *x = hidden + size_t(t) * d;
    float mean = 0.0f;
    for (int i = 0; i < d; ++i)
      mean += x[i];
    mean /= float(d);
    float var = 0.0f;
    for (int i = 0; i < d; ++i)
      var += (x[i] - mean) * (x[i] - mean);
    var /= float(d);
    float inv = 1.0f / std::sqrt(var + 1e-5f);
    for (int i = 0; i < d; ++i)
      y[i] = (x[i] - mean) * inv * p[l.gamma + i] + p[l.beta + i];
    // 2. Projection + ReLU.
    float *zt = &z[size_t(t) * h];
    linear_relu(p + l.w0, p + l.b0, y.data(), d, h, zt);
    // 3. Attention score.
    float dot = 0.0f;
    for (int o = 0; o < h; ++o)
      dot += p[l.query + o] * zt[o];
    score[t] = dot * score_scale;
  }
  // 4. Softmax over the tokens (max-subtracted) and the weighted sum.
  float max_score = *std::max_element(score.begin(), score.end());
  float sum = 0.0f;
  for (int t = 0; t < n_tokens; ++t)
    sum += (score[t] = std::exp(score[t] - max_score));
  std::vector<float> pooled(h, 0.0f);
  for (int t = 0; t < n_tokens; ++t) {
    float a = score[t] / sum;
    for (int o = 0; o < h; ++o)
      pooled[o] += a * z[size_t(t) * h + o];
  }
  // 5. MLP and sigmoid.
  std::vector<float> u1(s.m1), u2(s.m2);
  linear_relu(p + l.w1, p + l.b1, pooled.data(), h, s.m1, u1.data());
  linear_relu(p + l.w2, p + l.b2, u1.data(), s.m1, s.m2, u2.data());
  float logit = 0.0f;
  for (int i = 0; i < s.m2; ++i)
    logit += p[l.w3 + i] * u2[i];
  logit += p[l.b3];
  return 1.0f / (1.0f + std::exp(-logit));
}

std::vector<float> to_float_params(const std::vector<double> &params) {
  return std::vector<float>(params.begin(), params.end());
}

} // namespace saguaro::probe
