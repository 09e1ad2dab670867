//===- probe_model.cpp - Forward and backward pass of the probe networks ----------------===//
//
// attention: y_t = LN(x_t); z_t = ReLU(W0 y_t + b0); s_t = q.z_t / sqrt(h); a = softmax(s);
//            pooled = sum_t a_t z_t
// mean:      pooled = gamma * mean_t(xhat_t) + beta   (LN is affine in xhat, so this equals
//            the mean of the LayerNorm'd rows)
// both:      u1 = ReLU(W1 pooled + b1); u2 = ReLU(W2 u1 + b2); logit = w3.u2 + b3
//
//===------------------------------------------------------------------------------------===//
#include "probe/probe_model.h"

#include <algorithm>
#include <cmath>

namespace saguaro::probe {
namespace {

/// Normalizes one row of width d into xhat (no scale/shift).
void normalize_row(const float *x, int d, double *xhat) {
  double mean = 0;
  for (int i = 0; i < d; ++i)
    mean += x[i];
  mean /= d;
  double var = 0;
  for (int i = 0; i < d; ++i)
    var += (x[i] - mean) * (x[i] - mean);
  var /= d;
  double inv = 1.0 / std::sqrt(var + kLayerNormEps);
  for (int i = 0; i < d; ++i)
    xhat[i] = (x[i] - mean) * inv;
}

/// out = ReLU(W in + b), then times the dropout multipliers when given.
void dense_relu(const double *w, const double *b, const double *in, int n_in, int n_out, const std::vector<double> *mask,
                std::vector<double> &out) {
  out.assign(n_out, 0.0);
  for (int o = 0; o < n_out; ++o) {
    double acc = b[o];
    const double *row = w + size_t(o) * n_in;
    for (int i = 0; i < n_in; ++i)
      acc += row[i] * in[i];
    acc = std::max(acc, 0.0);
    out[o] = mask && !mask->empty() ? acc * (*mask)[o] : acc;
  }
}

/// Backward of dense_relu: given d(out), accumulates dW, db and returns d(in) in `din`.
/// A unit is active when its output is positive (ReLU and dropout both zero the rest; a
/// kept unit has multiplier > 0, so out > 0 iff pre-activation > 0 and kept).
void dense_relu_backward(const double *w, const double *in, int n_in, int n_out, const std::vector<double> &out,
                         const std::vector<double> *mask, const std::vector<double> &dout, double *dw, double *db,
                         std::vector<double> &din) {
  din.assign(n_in, 0.0);
  for (int o = 0; o < n_out; ++o) {
    if (out[o] <= 0)
      continue;
    double g = dout[o] * (mask && !mask->empty() ? (*mask)[o] : 1.0);
    db[o] += g;
    const double *row = w + size_t(o) * n_in;
    double *drow = dw + size_t(o) * n_in;
    for (int i = 0; i < n_in; ++i) {
      drow[i] += g * in[i];
      din[i] += g * row[i];
    }
  }
}

} // namespace

ProbeNet::ProbeNet(const ProbeShape &shape, PoolKind pool)
    : shape_(shape), pool_(pool), layout_(probe_layout(shape, pool)) {}

std::vector<double> ProbeNet::initial_params(ProbeRng &rng) const {
  const ProbeLayout &l = layout_;
  std::vector<double> p(l.total, 0.0);
  auto he = [&](size_t offset, size_t n, int fan_in) {
    double sd = std::sqrt(2.0 / fan_in);
    for (size_t i = 0; i < n; ++i)
      p[offset + i] = sd * rng.normal();
  };
  std::fill(p.begin() + l.gamma, p.begin() + l.gamma + shape_.d, 1.0);
  if (pool_ == PoolKind::attention) {
    he(l.w0, size_t(shape_.h) * shape_.d, shape_.d);
    for (int i = 0; i < shape_.h; ++i)
      p[l.query + i] = 0.1 * rng.normal();
  }
  he(l.w1, size_t(shape_.m1) * l.pooled, l.pooled);
  he(l.w2, size_t(shape_.m2) * shape_.m1, shape_.m1);
  double sd3 = std::sqrt(1.0 / shape_.m2); // the output layer has no ReLU after it
  for (int i = 0; i < shape_.m2; ++i)
    p[l.w3 + i] = sd3 * rng.normal();
  return p;
}

double ProbeNet::forward(const double *p, const float *hidden, int T, const DropoutMasks *masks,
                         ForwardCache &c) const {
  const ProbeLayout &l = layout_;
  const int d = shape_.d, h = shape_.h;
  c.pooled.assign(l.pooled, 0.0);
  if (pool_ == PoolKind::mean) {
    c.xhat.assign(d, 0.0);
    std::vector<double> row(d);
    for (int t = 0; t < T; ++t) {
      normalize_row(hidden + size_t(t) * d, d, row.data());
      for (int i = 0; i < d; ++i)
        c.xhat[i] += row[i];
    }
    for (int i = 0; i < d; ++i) {
      c.xhat[i] /= T;
      c.pooled[i] = p[l.gamma + i] * c.xhat[i] + p[l.beta + i];
    }
  } else {
    c.xhat.resize(size_t(T) * d);
    c.z.resize(size_t(T) * h);
    c.attn.resize(T);
    std::vector<double> y(d);
    const double scale = 1.0 / std::sqrt(double(h));
    for (int t = 0; t < T; ++t) {
      double *xhat = &c.xhat[size_t(t) * d];
      normalize_row(hidden + size_t(t) * d, d, xhat);
      for (int i = 0; i < d; ++i)
        y[i] = p[l.gamma + i] * xhat[i] + p[l.beta + i];
      double *z = &c.z[size_t(t) * h];
      double score = 0;
      for (int o = 0; o < h; ++o) {
        double acc = p[l.b0 + o];
        const double *row = p + l.w0 + size_t(o) * d;
        for (int i = 0; i < d; ++i)
          acc += row[i] * y[i];
        z[o] = std::max(acc, 0.0);
        score += p[l.query + o] * z[o];
      }
      c.attn[t] = score * scale;
    }
    double m = *std::max_element(c.attn.begin(), c.attn.end());
    double sum = 0;
    for (double &a : c.attn)
      sum += (a = std::exp(a - m));
    for (int t = 0; t < T; ++t) {
      c.attn[t] /= sum;
      for (int o = 0; o < h; ++o)
        c.pooled[o] += c.attn[t] * c.z[size_t(t) * h + o];
    }
  }
  dense_relu(p + l.w1, p + l.b1, c.pooled.data(), l.pooled, shape_.m1, masks ? &masks->m1 : nullptr, c.u1);
  dense_relu(p + l.w2, p + l.b2, c.u1.data(), shape_.m1, shape_.m2, masks ? &masks->m2 : nullptr, c.u2);
  double logit = p[l.b3];
  for (int i = 0; i < shape_.m2; ++i)
    logit += p[l.w3 + i] * c.u2[i];
  return logit;
}

void ProbeNet::backward(const double *p, const float *hidden, int T, const ForwardCache &c, const DropoutMasks *masks,
                        double dlogit, double *g) const {
  (void)hidden; // the normalized rows are cached; LayerNorm's input is data, not a parameter
  const ProbeLayout &l = layout_;
  const int d = shape_.d, h = shape_.h;
  std::vector<double> du2(shape_.m2), du1, dpooled;
  g[l.b3] += dlogit;
  for (int i = 0; i < shape_.m2; ++i) {
    g[l.w3 + i] += dlogit * c.u2[i];
    du2[i] = dlogit * p[l.w3 + i];
  }
  dense_relu_backward(p + l.w2, c.u1.data(), shape_.m1, shape_.m2, c.u2, masks ? &masks->m2 : nullptr, du2, g + l.w2,
                      g + l.b2, du1);
  dense_relu_backward(p + l.w1, c.pooled.data(), l.pooled, shape_.m1, c.u1, masks ? &masks->m1 : nullptr, du1,
                      g + l.w1, g + l.b1, dpooled);

  if (pool_ == PoolKind::mean) {
    for (int i = 0; i < d; ++i) {
      g[l.gamma + i] += dpooled[i] * c.xhat[i];
      g[l.beta + i] += dpooled[i];
    }
    return;
  }
  // Attention pool: pooled = sum_t a_t z_t, a = softmax(s), s_t = q.z_t / sqrt(h).
  const double scale = 1.0 / std::sqrt(double(h));
  std::vector<double> da(T);
  double weighted = 0; // sum_t a_t da_t
  for (int t = 0; t < T; ++t) {
    const double *z = &c.z[size_t(t) * h];
    double acc = 0;
    for (int o = 0; o < h; ++o)
      acc += dpooled[o] * z[o];
    da[t] = acc;
    weighted += c.attn[t] * acc;
  }
  std::vector<double> dpre(h), y(d);
  for (int t = 0; t < T; ++t) {
    const double *z = &c.z[size_t(t) * h];
    const double *xhat = &c.xhat[size_t(t) * d];
    double ds = c.attn[t] * (da[t] - weighted) * scale;
    for (int o = 0; o < h; ++o) {
      g[l.query + o] += ds * z[o];
      double dz = c.attn[t] * dpooled[o] + ds * p[l.query + o];
      dpre[o] = z[o] > 0 ? dz : 0.0;
    }
    for (int i = 0; i < d; ++i)
      y[i] = p[l.gamma + i] * xhat[i] + p[l.beta + i];
    for (int o = 0; o < h; ++o) {
      if (dpre[o] == 0.0)
        continue;
      g[l.b0 + o] += dpre[o];
      const double *row = p + l.w0 + size_t(o) * d;
      double *drow = g + l.w0 + size_t(o) * d;
      for (int i = 0; i < d; ++i) {
        drow[i] += dpre[o] * y[i];
        double dy = dpre[o] * row[i];
        g[l.gamma + i] += dy * xhat[i];
        g[l.beta + i] += dy;
      }
    }
  }
}

std::vector<bool> weight_decay_mask(const ProbeLayout &l) {
  std::vector<bool> mask(l.total, false);
  auto set = [&](size_t from, size_t to) { std::fill(mask.begin() + from, mask.begin() + to, true); };
  set(l.w0, l.b0);
  set(l.w1, l.b1);
  set(l.w2, l.b2);
  set(l.w3, l.b3);
  return mask;
}

} // namespace saguaro::probe
