//===- adam.h - AdamW with decoupled weight decay ---------------------------------------===//
#ifndef SAGUARO_PROBE_ADAM_H
#define SAGUARO_PROBE_ADAM_H

#include <cstddef>
#include <vector>

namespace saguaro::probe {

struct AdamOptions {
  double lr = 2e-3;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  double weight_decay = 1e-2; // decoupled (Loshchilov & Hutter): p -= lr * wd * p, masked
};

/// AdamW (Loshchilov & Hutter 2019): Adam's bias-corrected moments, plus weight decay applied
/// directly to the parameters marked in `decay_mask` rather than added to the gradient.
class AdamW {
public:
  AdamW(size_t n, const AdamOptions &options, std::vector<bool> decay_mask);
  /// One update of `params` with `grad`.
  void step(std::vector<double> &params, const std::vector<double> &grad);

private:
  AdamOptions options_;
  std::vector<bool> decay_mask_;
  std::vector<double> m_, v_;
  long t_ = 0;
};

} // namespace saguaro::probe

#endif // SAGUARO_PROBE_ADAM_H
