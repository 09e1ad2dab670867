//===- trainer.h - Trains the probe and the mean-pool baseline --------------------------===//
#ifndef SAGUARO_PROBE_TRAINER_H
#define SAGUARO_PROBE_TRAINER_H

#include "probe/probe_data.h"
#include "probe/probe_model.h"
#include "probe/split.h"

#include <cstdint>
#include <string>
#include <vector>

namespace saguaro::probe {

/// Everything that determines a trained probe besides the data. Stored in the probe file, so
/// `probe eval` and `probe calibrate` rebuild the same split and train the baselines alike.
struct TrainOptions {
  int h = 32, m1 = 128, m2 = 64; // probe widths (d comes from the data)
  uint64_t seed = 1;
  double val_fraction = 0.2; // of the non-held-out samples, by a hash of the id
  double lr = 2e-3;
  double weight_decay = 1e-2;
  double dropout = 0.1; // on both MLP hidden layers, training only
  int batch = 32;
  int max_epochs = 200;
  int patience = 20; // epochs without a better validation AUROC before stopping
  double pos_weight = 0; // BCE weight of the "wrong" class; 0 = n_right / n_wrong of the training split
};

struct TrainResult {
  std::vector<double> params; // the weights of the epoch with the best validation AUROC
  int best_epoch = 0;         // 1-based
  int epochs_run = 0;
  double best_val_auroc = 0;
  double pos_weight = 0; // the weight actually used
  int n_train = 0, n_val = 0;
  std::vector<double> train_loss, val_auroc; // per epoch
};

/// Checks the options' ranges: widths, batch, epochs and patience >= 1, 0 < val_fraction < 1,
/// 0 <= dropout < 1, lr > 0, weight_decay >= 0, pos_weight >= 0.
bool check_train_options(const TrainOptions &options, std::string &error);

/// Trains `net` on the samples with role `train`, early-stopping on the AUROC of the
/// `validation` samples. Deterministic: single-threaded, fixed summation order, and all
/// randomness from ProbeRng streams derived from options.seed. False + error when a split is
/// empty or holds only one class.
bool train_network(const ProbeData &data, const std::vector<SplitRole> &roles, const ProbeNet &net,
                   const TrainOptions &options, TrainResult &result, std::string &error);

/// p(wrong) of each sample in `indices` under the double-precision network in eval mode.
std::vector<double> network_scores(const ProbeNet &net, const std::vector<double> &params, const ProbeData &data,
                                   const std::vector<int> &indices);

/// The per-sample loss -(w * y * log p + (1 - y) * log(1 - p)) with p = sigmoid(logit), y = 1
/// for a wrong answer and w = pos_weight for those; its derivative goes to *dlogit.
double weighted_bce(double logit, bool wrong, double pos_weight, double *dlogit);

/// Numerically stable logistic function.
double sigmoid(double x);

} // namespace saguaro::probe

#endif // SAGUARO_PROBE_TRAINER_H
