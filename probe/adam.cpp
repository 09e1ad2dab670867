//===- adam.cpp - AdamW with decoupled weight decay -------------------------------------===//
#include "probe/adam.h"

#include <cmath>
#include <utility>

namespace saguaro::probe {

AdamW::AdamW(size_t n, const AdamOptions &options, std::vector<bool> decay_mask)
    : options_(options), decay_mask_(std::move(decay_mask)), m_(n, 0.0), v_(n, 0.0) {}

void AdamW::step(std::vector<double> &params, const std::vector<double> &grad) {
  ++t_;
  const AdamOptions &o = options_;
  double c1 = 1.0 - std::pow(o.beta1, double(t_));
  double c2 = 1.0 - std::pow(o.beta2, double(t_));
  for (size_t i = 0; i < params.size(); ++i) {
    m_[i] = o.beta1 * m_[i] + (1.0 - o.beta1) * grad[i];
    v_[i] = o.beta2 * v_[i] + (1.0 - o.beta2) * grad[i] * grad[i];
    double update = (m_[i] / c1) / (std::sqrt(v_[i] / c2) + o.eps);
    if (decay_mask_[i])
      params[i] -= o.lr * o.weight_decay * params[i];
    params[i] -= o.lr * update;
  }
}

} // namespace saguaro::probe
