//===- train_probe.h - `probe train` as one library call --------------------------------===//
#ifndef SAGUARO_PROBE_TRAIN_PROBE_H
#define SAGUARO_PROBE_TRAIN_PROBE_H

#include "probe/probe_file.h"
#include "probe/trainer.h"

namespace saguaro::probe {

/// Splits `data` by options.seed, trains the attention probe and packs the best weights, the
/// options and the training summary into `probe`. False + error as train_network.
bool train_probe(const ProbeData &data, const TrainOptions &options, ProbeWeights &probe, TrainResult &result,
                 std::string &error);

} // namespace saguaro::probe

#endif // SAGUARO_PROBE_TRAIN_PROBE_H
