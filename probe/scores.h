//===- scores.h - Every method's p(wrong)-like score for every sample --------------------===//
#ifndef SAGUARO_PROBE_SCORES_H
#define SAGUARO_PROBE_SCORES_H

#include "probe/probe_data.h"
#include "probe/probe_file.h"
#include "probe/split.h"
#include "probe/trainer.h"

#include <string>
#include <vector>

namespace saguaro::probe {

/// The compared methods, in report order. A higher score means "more likely wrong".
inline const std::vector<std::string> &method_names() {
  static const std::vector<std::string> names = {"probe",       "meanpool",    "logreg",
                                                 "entropy_mean", "entropy_max", "entropy_first"};
  return names;
}

/// scores[m][i] is method_names()[m]'s score of sample i (all samples of the file).
struct SampleScores {
  std::vector<std::vector<double>> scores; // NaN for every sample when a baseline is unavailable
  std::vector<std::string> notes;          // why a baseline is unavailable
  const std::vector<double> &of(const std::string &method) const;
};

/// Scores every sample: the probe by probe_p_wrong (float32, as shipped); the mean-pool MLP and
/// the logistic regression after training them on the probe's training split with the probe's
/// options and seed (so the baselines see exactly the probe's training data); the entropies
/// directly. A baseline that cannot be trained gets NaN scores and a note. Never fails today;
/// the bool keeps room for errors that should stop the evaluation.
bool score_samples(const ProbeWeights &probe, const TrainOptions &options, const ProbeData &data,
                   const std::vector<SplitRole> &roles, SampleScores &out, std::string &error);

/// {"id": [...], "role": [...], "wrong": [...], "<method>": [...], ...}, one entry per sample in
/// file order, scores printed to round-trip precision (for the numpy reference check).
std::string scores_json(const ProbeData &data, const std::vector<SplitRole> &roles, const SampleScores &scores);

/// The L2 strength of the logistic-regression baseline (sum-of-losses objective).
constexpr double kLogisticL2 = 1.0;

} // namespace saguaro::probe

#endif // SAGUARO_PROBE_SCORES_H
