//===- train_options.h - TrainOptions to and from the probe file's JSON -----------------===//
#ifndef SAGUARO_PROBE_TRAIN_OPTIONS_H
#define SAGUARO_PROBE_TRAIN_OPTIONS_H

#include "probe/trainer.h"

#include <string>

namespace saguaro::probe {

/// {"options": {...every TrainOptions field...}, "summary": {best_epoch, epochs_run,
///  best_val_auroc, pos_weight, n_train, n_val}} as stored in ProbeWeights::train_json.
std::string train_json(const TrainOptions &options, const TrainResult &result);

/// Reads the "options" object back; false + error when it is missing or mistyped.
bool parse_train_options(const std::string &json, TrainOptions &options, std::string &error);

} // namespace saguaro::probe

#endif // SAGUARO_PROBE_TRAIN_OPTIONS_H
