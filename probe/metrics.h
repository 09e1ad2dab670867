//===- metrics.h - The evaluation report's numbers --------------------------------------===//
#ifndef SAGUARO_PROBE_METRICS_H
#define SAGUARO_PROBE_METRICS_H

#include "probe/scores.h"

#include <nlohmann/json.hpp>

namespace saguaro::probe {

/// Builds the report documented in docs/probe.md: held-out pooled metrics (with the
/// within-cell analysis, the cell baseline and the guessable split), validation pooled,
/// per-family metrics on the samples the probe did not train on, and the hand-off curve.
/// `cloud_accuracy` < 0 means "not given".
nlohmann::json build_report(const ProbeData &data, const std::vector<SplitRole> &roles, const SampleScores &scores,
                            double cloud_accuracy);

/// Fractions 0, 0.05, ..., 1: hand off the samples with the highest `score` (ties broken by
/// file order), count the cloud right (and, given cloud_accuracy >= 0, right with that
/// probability).
nlohmann::json handoff_curve(const ProbeData &data, const std::vector<int> &indices, const std::vector<double> &score,
                             double cloud_accuracy);

} // namespace saguaro::probe

#endif // SAGUARO_PROBE_METRICS_H
