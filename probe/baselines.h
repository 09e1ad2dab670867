//===- baselines.h - What the probe must beat: logistic regression and token entropy ----===//
//
// The third baseline, mean-pool + MLP, is ProbeNet with PoolKind::mean trained by
// train_network like the probe itself.
//
//===------------------------------------------------------------------------------------===//
#ifndef SAGUARO_PROBE_BASELINES_H
#define SAGUARO_PROBE_BASELINES_H

#include "probe/probe_data.h"

#include <string>
#include <vector>

namespace saguaro::probe {

/// L2-regularized logistic regression on the standardized mean-pooled hidden state.
struct LogisticModel {
  std::vector<double> mean, scale; // standardization fitted on the training split
  std::vector<double> w;
  double b = 0;
  int iterations = 0;
};

/// The unweighted mean of the sample's hidden rows (no LayerNorm), in double.
std::vector<double> mean_pooled_hidden(const ProbeSample &sample, int width);

/// Minimizes sum_i BCE_i + (l2 / 2) * |w|^2 (the bias is not penalized) by Newton's method with
/// backtracking, from zero: the objective is strictly convex, so the optimum is unique and does
/// not depend on any seed. False + error when the training samples hold only one class.
bool train_logistic(const ProbeData &data, const std::vector<int> &train, double l2, LogisticModel &model,
                    std::string &error);

/// Predicted p(wrong) of each sample in `indices`.
std::vector<double> logistic_scores(const LogisticModel &model, const ProbeData &data, const std::vector<int> &indices);

/// Entropy-based scores: a higher entropy should mean "more likely wrong".
enum class EntropyScore { mean, max, first };
double entropy_score(const ProbeSample &sample, EntropyScore kind);

} // namespace saguaro::probe

#endif // SAGUARO_PROBE_BASELINES_H
