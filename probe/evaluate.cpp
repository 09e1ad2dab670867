//===- evaluate.cpp - `probe eval` and `probe calibrate` as library calls ---------------===//
#include "probe/evaluate.h"

#include "probe/metrics.h"
#include "probe/probe_head.h"
#include "probe/report.h"
#include "probe/scores.h"
#include "probe/train_options.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace saguaro::probe {
namespace {

/// Checks that the probe fits the data and rebuilds its split.
bool prepare(const ProbeWeights &probe, const std::string &probe_path, const ProbeData &data,
             const std::string &data_path, TrainOptions &options, std::vector<SplitRole> &roles, std::string &error) {
  if (!check_probe_fits_data(probe, probe_path, data, data_path, error))
    return false;
  if (!parse_train_options(probe.train_json, options, error)) {
    error = probe_path + ": " + error;
    return false;
  }
  roles = split_samples(data, options.seed, options.val_fraction);
  return true;
}

} // namespace

bool evaluate_probe(const ProbeWeights &probe, const std::string &probe_path, const ProbeData &data,
                    const std::string &data_path, const EvalOptions &options, EvalOutput &out, std::string &error) {
  TrainOptions train;
  std::vector<SplitRole> roles;
  if (!prepare(probe, probe_path, data, data_path, train, roles, error))
    return false;
  SampleScores scores;
  if (!score_samples(probe, train, data, roles, scores, error)) {
    error = data_path + ": " + error;
    return false;
  }
  nlohmann::json report = build_report(data, roles, scores, options.has_cloud_accuracy ? options.cloud_accuracy : -1);
  nlohmann::json training = nlohmann::json::parse(probe.train_json, nullptr, false);
  report["probe_training"] = training.is_discarded() ? nlohmann::json(nullptr) : training;
  out.json = report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  out.table = format_report_table(report);
  if (options.want_scores)
    out.scores_json = scores_json(data, roles, scores);
  return true;
}

bool calibrate_threshold(const ProbeWeights &probe, const std::string &probe_path, const ProbeData &data,
                         const std::string &data_path, double rate, Calibration &out, std::string &error) {
  if (!(rate >= 0 && rate <= 1)) {
    error = "--handoff-rate must be between 0 and 1";
    return false;
  }
  TrainOptions train;
  std::vector<SplitRole> roles;
  if (!prepare(probe, probe_path, data, data_path, train, roles, error))
    return false;
  std::vector<int> validation = samples_with_role(roles, SplitRole::validation);
  if (validation.empty()) {
    error = data_path + ": no sample falls into the probe's validation split (ids or families differ from training?)";
    return false;
  }
  auto p_of = [&](int i) { return probe_p_wrong(probe, data.samples[i].hidden.data(), data.samples[i].n_tokens()); };
  std::vector<float> p;
  for (int i : validation)
    p.push_back(p_of(i));
  std::sort(p.begin(), p.end(), std::greater<float>());
  const int n = static_cast<int>(p.size());
  const int k = static_cast<int>(std::lround(rate * n));
  // Hand off when p >= threshold. Between the k-th and (k+1)-th highest the midpoint is the
  // most robust choice; at the ends, just above the maximum or exactly the minimum. Ties at the
  // boundary can make the achieved rate differ from the request; it is reported.
  double threshold = k == 0   ? std::nextafter(double(p.front()), 2.0)
                     : k == n ? double(p.back())
                              : 0.5 * (double(p[k - 1]) + double(p[k]));
  auto rate_at = [&](const std::vector<int> &indices) {
    int handed = 0;
    for (int i : indices)
      handed += p_of(i) >= threshold;
    return indices.empty() ? 0.0 : double(handed) / double(indices.size());
  };
  std::vector<int> heldout = samples_with_role(roles, SplitRole::heldout);
  out.threshold = threshold;
  out.validation_n = n;
  out.validation_rate = rate_at(validation);
  out.heldout_n = static_cast<int>(heldout.size());
  out.heldout_rate = rate_at(heldout);
  return true;
}

std::string calibration_json(const Calibration &c, double requested_rate) {
  nlohmann::json j = {{"threshold", c.threshold},           {"handoff_rate_requested", requested_rate},
                      {"validation_n", c.validation_n},     {"validation_handoff_rate", c.validation_rate},
                      {"heldout_n", c.heldout_n},           {"heldout_handoff_rate", c.heldout_rate}};
  return j.dump(2) + "\n";
}

} // namespace saguaro::probe
