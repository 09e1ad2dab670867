//===- metrics.cpp - The evaluation report's numbers ------------------------------------===//
//
// Cells are (family, difficulty). The within-cell analysis keeps the cells whose accuracy lies
// in [10 %, 90 %] and that hold both classes, and averages each method's AUROC over them
// (unweighted). The cell baseline scores every sample by its cell's error rate measured on the
// evaluated samples themselves — the most favourable estimate for that baseline — so a probe
// that only "knows the question is hard" does not beat it.
//
//===------------------------------------------------------------------------------------===//
#include "probe/metrics.h"

#include "probe/auroc.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

namespace saguaro::probe {
namespace {

using nlohmann::json;

/// NaN (undefined) becomes JSON null.
json number_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

double auroc_of(const ProbeData &data, const std::vector<int> &indices, const std::vector<double> &score) {
  std::vector<double> s;
  std::vector<bool> y;
  for (int i : indices) {
    if (!std::isfinite(score[i]))
      return std::nan(""); // an unavailable baseline
    s.push_back(score[i]);
    y.push_back(data.samples[i].wrong);
  }
  return auroc(s, y);
}

/// n, accuracy and every method's AUROC on `indices`.
json group_metrics(const ProbeData &data, const std::vector<int> &indices, const SampleScores &scores) {
  int wrong = 0;
  for (int i : indices)
    wrong += data.samples[i].wrong;
  json g = {{"n", indices.size()}, {"n_wrong", wrong}};
  g["accuracy"] = indices.empty() ? json(nullptr) : json(1.0 - double(wrong) / double(indices.size()));
  for (size_t m = 0; m < method_names().size(); ++m)
    g[method_names()[m] + "_auroc"] = number_or_null(auroc_of(data, indices, scores.scores[m]));
  return g;
}

/// Cell analysis and the cell baseline, added to the held-out group `g`.
void add_cell_analysis(const ProbeData &data, const std::vector<int> &indices, const SampleScores &scores, json &g) {
  std::map<std::pair<std::string, int>, std::vector<int>> cells;
  for (int i : indices)
    cells[{data.samples[i].family, data.samples[i].difficulty}].push_back(i);

  std::vector<double> cell_rate(data.samples.size(), 0.0);
  json cell_list = json::array();
  std::vector<double> sums(method_names().size(), 0.0);
  int n_cells = 0;
  for (const auto &[key, members] : cells) {
    int wrong = 0;
    for (int i : members)
      wrong += data.samples[i].wrong;
    double error_rate = double(wrong) / double(members.size());
    for (int i : members)
      cell_rate[i] = error_rate;
    double accuracy = 1.0 - error_rate;
    bool used = accuracy >= 0.1 && accuracy <= 0.9 && wrong > 0 && wrong < int(members.size());
    json c = {{"family", key.first}, {"difficulty", key.second}, {"n", members.size()},
              {"accuracy", accuracy}, {"in_analysis", used}};
    if (used) {
      ++n_cells;
      for (size_t m = 0; m < method_names().size(); ++m) {
        double a = auroc_of(data, members, scores.scores[m]);
        sums[m] += a; // NaN (unavailable baseline) propagates to the mean, reported as null
        c[method_names()[m] + "_auroc"] = number_or_null(a);
      }
    }
    cell_list.push_back(c);
  }
  g["cell_baseline_auroc"] = number_or_null(auroc_of(data, indices, cell_rate));
  g["n_cells_in_analysis"] = n_cells;
  json within = json::object();
  double best_entropy = std::nan("");
  std::string best_entropy_name;
  for (size_t m = 0; m < method_names().size(); ++m) {
    double mean = n_cells ? sums[m] / n_cells : std::nan("");
    within[method_names()[m]] = number_or_null(mean);
    // The best of the three entropy scores, chosen on this very data: favourable to entropy.
    if (method_names()[m].rfind("entropy_", 0) == 0 && std::isfinite(mean) &&
        !(std::isfinite(best_entropy) && best_entropy >= mean)) {
      best_entropy = mean;
      best_entropy_name = method_names()[m];
    }
  }
  g["within_cell_auroc"] = within;
  g["probe_within_cell_auroc"] = within["probe"];
  g["entropy_within_cell_auroc"] = number_or_null(best_entropy);
  g["entropy_within_cell_method"] = best_entropy_name.empty() ? json(nullptr) : json(best_entropy_name);
  g["cells"] = cell_list;
}

} // namespace

json handoff_curve(const ProbeData &data, const std::vector<int> &indices, const std::vector<double> &score,
                   double cloud_accuracy) {
  std::vector<int> order = indices;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return score[a] > score[b]; });
  const int n = static_cast<int>(order.size());
  int correct_total = 0;
  for (int i : order)
    correct_total += !data.samples[i].wrong;
  json curve = json::array();
  if (n == 0)
    return curve;
  for (int step = 0; step <= 20; ++step) {
    double fraction = step / 20.0;
    int k = static_cast<int>(std::lround(fraction * n));
    int correct_handed = 0;
    for (int j = 0; j < k; ++j)
      correct_handed += !data.samples[order[j]].wrong;
    int local_correct = correct_total - correct_handed;
    json point = {{"fraction", fraction}, {"handed_off", k},
                  {"threshold", k > 0 ? json(score[order[k - 1]]) : json(nullptr)},
                  {"accuracy_cloud_right", double(local_correct + k) / n},
                  // Handing off k random samples instead: the kept ones are right at the base rate.
                  {"accuracy_random_cloud_right", (double(correct_total) * (n - k) / n + k) / n}};
    if (cloud_accuracy >= 0)
      point["accuracy_with_cloud"] = (local_correct + k * cloud_accuracy) / n;
    curve.push_back(point);
  }
  return curve;
}

json build_report(const ProbeData &data, const std::vector<SplitRole> &roles, const SampleScores &scores,
                  double cloud_accuracy) {
  std::vector<int> heldout = samples_with_role(roles, SplitRole::heldout);
  std::vector<int> validation = samples_with_role(roles, SplitRole::validation);
  json report;
  report["model"] = data.model;
  report["width"] = data.width;
  report["tap_layer"] = data.tap_layer;
  report["split"] = {{"train", samples_with_role(roles, SplitRole::train).size()},
                     {"validation", validation.size()},
                     {"heldout", heldout.size()}};

  json h = group_metrics(data, heldout, scores);
  add_cell_analysis(data, heldout, scores, h);
  std::vector<int> guessable, not_guessable;
  for (int i : heldout)
    (data.samples[i].guessable ? guessable : not_guessable).push_back(i);
  h["guessable"] = group_metrics(data, guessable, scores);
  h["not_guessable"] = group_metrics(data, not_guessable, scores);
  report["heldout"] = h;
  report["validation"] = group_metrics(data, validation, scores);

  // Per family, on the samples the probe did not train on.
  std::map<std::string, std::vector<int>> families;
  std::map<std::string, bool> family_heldout;
  for (size_t i = 0; i < data.samples.size(); ++i) {
    families[data.samples[i].family]; // list every family, even one with no evaluated samples
    if (roles[i] != SplitRole::train)
      families[data.samples[i].family].push_back(static_cast<int>(i));
    family_heldout[data.samples[i].family] = data.samples[i].heldout;
  }
  json family_json = json::object();
  for (const auto &[name, members] : families) {
    json f = group_metrics(data, members, scores);
    f["evaluated_on"] = family_heldout[name] ? "heldout" : "validation";
    family_json[name] = f;
  }
  report["families"] = family_json;
  report["handoff_curve"] = handoff_curve(data, heldout, scores.of("probe"), cloud_accuracy);
  if (cloud_accuracy >= 0)
    report["cloud_accuracy"] = cloud_accuracy;
  report["notes"] = scores.notes;
  return report;
}

} // namespace saguaro::probe
