//===- scores.cpp - Every method's score for every sample -------------------------------===//
#include "probe/scores.h"

#include "probe/baselines.h"
#include "probe/probe_head.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <numeric>

namespace saguaro::probe {

const std::vector<double> &SampleScores::of(const std::string &method) const {
  const auto &names = method_names();
  for (size_t m = 0; m < names.size(); ++m)
    if (names[m] == method)
      return scores[m];
  static const std::vector<double> none;
  return none;
}

bool score_samples(const ProbeWeights &probe, const TrainOptions &options, const ProbeData &data,
                   const std::vector<SplitRole> &roles, SampleScores &out, std::string &error) {
  std::vector<int> all(data.samples.size());
  std::iota(all.begin(), all.end(), 0);
  out.scores.assign(method_names().size(), {});
  out.notes.clear();

  for (const ProbeSample &s : data.samples)
    out.scores[0].push_back(probe_p_wrong(probe, s.hidden.data(), s.n_tokens()));

  // A baseline that cannot be trained on this file (e.g. it holds only held-out families) is
  // reported as unavailable (NaN scores, null AUROCs) with a note, not as a failed evaluation.
  const std::vector<double> unavailable(data.samples.size(), std::nan(""));
  std::string why;
  ProbeNet meanpool(ProbeShape{data.width, options.h, options.m1, options.m2}, PoolKind::mean);
  TrainResult trained;
  if (train_network(data, roles, meanpool, options, trained, why)) {
    out.scores[1] = network_scores(meanpool, trained.params, data, all);
  } else {
    out.scores[1] = unavailable;
    out.notes.push_back("mean-pool baseline not trained: " + why);
  }
  LogisticModel logistic;
  if (train_logistic(data, samples_with_role(roles, SplitRole::train), kLogisticL2, logistic, why)) {
    out.scores[2] = logistic_scores(logistic, data, all);
  } else {
    out.scores[2] = unavailable;
    out.notes.push_back(why);
  }

  for (const ProbeSample &s : data.samples) {
    out.scores[3].push_back(entropy_score(s, EntropyScore::mean));
    out.scores[4].push_back(entropy_score(s, EntropyScore::max));
    out.scores[5].push_back(entropy_score(s, EntropyScore::first));
  }
  return true;
}

std::string scores_json(const ProbeData &data, const std::vector<SplitRole> &roles, const SampleScores &scores) {
  static const char *role_names[] = {"train", "validation", "heldout"};
  nlohmann::json ids = nlohmann::json::array(), role = nlohmann::json::array(), wrong = nlohmann::json::array();
  for (size_t i = 0; i < data.samples.size(); ++i) {
    ids.push_back(data.samples[i].id);
    role.push_back(role_names[int(roles[i])]);
    wrong.push_back(data.samples[i].wrong);
  }
  nlohmann::json out = {{"id", ids}, {"role", role}, {"wrong", wrong}};
  for (size_t m = 0; m < method_names().size(); ++m)
    out[method_names()[m]] = scores.scores[m];
  return out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

} // namespace saguaro::probe
