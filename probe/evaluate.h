//===- evaluate.h - `probe eval` and `probe calibrate` as library calls -----------------===//
//
// Results come back as text (the JSON document and the human table) so that callers built
// without exceptions (the `saguaro` driver) need no JSON library of their own.
//
//===------------------------------------------------------------------------------------===//
#ifndef SAGUARO_PROBE_EVALUATE_H
#define SAGUARO_PROBE_EVALUATE_H

#include "probe/probe_data.h"
#include "probe/probe_file.h"

#include <string>

namespace saguaro::probe {

struct EvalOptions {
  bool has_cloud_accuracy = false;
  double cloud_accuracy = 1.0; // expected accuracy of the cloud model on handed-off samples
  bool want_scores = false;    // also fill EvalOutput::scores_json
};

struct EvalOutput {
  std::string json;        // the report (docs/probe.md, "probe eval --json")
  std::string table;       // the same for people
  std::string scores_json; // per-sample scores of every method (when asked)
};

/// Rebuilds the probe's split of `data` from the probe's stored options, trains the baselines
/// on its training split, scores every sample and reports the metrics. `probe_path` and
/// `data_path` are only used in messages.
bool evaluate_probe(const ProbeWeights &probe, const std::string &probe_path, const ProbeData &data,
                    const std::string &data_path, const EvalOptions &options, EvalOutput &out, std::string &error);

struct Calibration {
  double threshold = 0;     // hand off when p(wrong) >= threshold
  int validation_n = 0;     // validation samples the threshold was chosen on
  double validation_rate = 0; // fraction of them handed off at the threshold
  int heldout_n = 0;
  double heldout_rate = 0; // the same threshold's hand-off fraction on the held-out samples
};

/// Chooses the p(wrong) threshold that hands off `rate` (0..1) of the validation samples.
bool calibrate_threshold(const ProbeWeights &probe, const std::string &probe_path, const ProbeData &data,
                         const std::string &data_path, double rate, Calibration &out, std::string &error);

/// The calibration as a JSON object.
std::string calibration_json(const Calibration &calibration, double requested_rate);

} // namespace saguaro::probe

#endif // SAGUARO_PROBE_EVALUATE_H
