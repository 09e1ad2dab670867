//===- probe_model.h - Training-time forward and backward pass of the probe networks ---===//
//
// The trainer works in double precision, so the hand-written backward pass can be checked
// against central finite differences (test/unit/probe/gradient_test.cpp) and so training does
// not depend on float summation order. The shipped reference computation in float is
// probe_p_wrong (probe_head.h); the two agree to float rounding.
//
//===------------------------------------------------------------------------------------===//
#ifndef SAGUARO_PROBE_PROBE_MODEL_H
#define SAGUARO_PROBE_PROBE_MODEL_H

#include "probe/probe_shape.h"
#include "probe/rng.h"

#include <vector>

namespace saguaro::probe {

/// LayerNorm epsilon, added to the biased variance (same as PyTorch's default).
constexpr double kLayerNormEps = 1e-5;

/// Inverted-dropout multipliers for the two MLP hidden layers: each entry is 0 (dropped) or
/// 1/(1-p). Empty vectors mean no dropout (evaluation).
struct DropoutMasks {
  std::vector<double> m1, m2;
};

/// Activations kept by forward() for backward().
struct ForwardCache {
  std::vector<double> xhat; // [T][d] normalized rows (attention) or [d] their mean (mean pool)
  std::vector<double> z;    // [T][h] ReLU(W0 y + b0) (attention only)
  std::vector<double> attn; // [T] softmax weights (attention only)
  std::vector<double> pooled, u1, u2; // after ReLU and dropout
};

/// The probe network (PoolKind::attention) or the mean-pool baseline (PoolKind::mean).
class ProbeNet {
public:
  ProbeNet(const ProbeShape &shape, PoolKind pool);

  const ProbeShape &shape() const { return shape_; }
  PoolKind pool() const { return pool_; }
  const ProbeLayout &layout() const { return layout_; }

  /// He-normal matrices (ReLU fan-in), unit LayerNorm scale, zero biases, small random query.
  std::vector<double> initial_params(ProbeRng &rng) const;

  /// Returns the logit of p(wrong) for one answer of `n_tokens` hidden rows.
  double forward(const double *params, const float *hidden, int n_tokens, const DropoutMasks *masks,
                 ForwardCache &cache) const;

  /// Adds dlogit * d(logit)/d(params) to `grad`, using the cache of the matching forward().
  void backward(const double *params, const float *hidden, int n_tokens, const ForwardCache &cache,
                const DropoutMasks *masks, double dlogit, double *grad) const;

private:
  ProbeShape shape_;
  PoolKind pool_;
  ProbeLayout layout_;
};

/// Which parameters get decoupled weight decay: the weight matrices (W0, W1, W2, w3), not
/// LayerNorm's gamma/beta, the biases or the attention query.
std::vector<bool> weight_decay_mask(const ProbeLayout &layout);

} // namespace saguaro::probe

#endif // SAGUARO_PROBE_PROBE_MODEL_H
