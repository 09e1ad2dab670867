//===- trainer.cpp - Mini-batch AdamW training with early stopping ----------------------===//
//
// Loss: mean over the batch of weighted_bce (the positive class, "wrong", weighted by
// pos_weight so that rare errors are not ignored).
//
//===------------------------------------------------------------------------------------===//
#include "probe/trainer.h"

#include "probe/adam.h"
#include "probe/auroc.h"

#include <cmath>

namespace saguaro::probe {
namespace {

bool check_split(const ProbeData &data, const std::vector<int> &indices, const char *name, std::string &error) {
  int wrong = 0;
  for (int i : indices)
    wrong += data.samples[i].wrong;
  int right = static_cast<int>(indices.size()) - wrong;
  if (indices.empty()) {
    error = std::string("the ") + name + " split is empty (no samples of non-held-out families" +
            (std::string(name) == "validation" ? " fell into validation; raise --val-fraction or add samples)" : ")");
    return false;
  }
  if (wrong == 0 || right == 0) {
    error = std::string("the ") + name + " split has only one class (" + std::to_string(right) + " right, " +
            std::to_string(wrong) + " wrong); the probe needs both right and wrong answers";
    return false;
  }
  return true;
}

const char *pool_name(PoolKind pool) { return pool == PoolKind::attention ? "attention" : "mean"; }

} // namespace

bool check_train_options(const TrainOptions &o, std::string &error) {
  const char *problem = o.h < 1 || o.m1 < 1 || o.m2 < 1          ? "the widths h, m1, m2 must be at least 1"
                        : o.batch < 1                             ? "the batch size must be at least 1"
                        : o.max_epochs < 1 || o.patience < 1      ? "epochs and patience must be at least 1"
                        : !(o.val_fraction > 0 && o.val_fraction < 1) ? "the validation fraction must lie in (0, 1)"
                        : !(o.dropout >= 0 && o.dropout < 1)      ? "the dropout rate must lie in [0, 1)"
                        : !(o.lr > 0)                             ? "the learning rate must be positive"
                        : !(o.weight_decay >= 0)                  ? "the weight decay must not be negative"
                        : !(o.pos_weight >= 0)                    ? "the positive-class weight must not be negative"
                                                                  : nullptr;
  if (problem)
    error = problem;
  return problem == nullptr;
}

double sigmoid(double x) {
  if (x >= 0)
    return 1.0 / (1.0 + std::exp(-x));
  double e = std::exp(x);
  return e / (1.0 + e);
}

double weighted_bce(double logit, bool wrong, double pos_weight, double *dlogit) {
  // log p and log(1-p) from the logit, finite even when p rounds to 0 or 1.
  double log_p = logit >= 0 ? -std::log1p(std::exp(-logit)) : logit - std::log1p(std::exp(logit));
  double log_not_p = log_p - logit;
  double p = sigmoid(logit);
  double weight = wrong ? pos_weight : 1.0;
  *dlogit = weight * (wrong ? p - 1.0 : p);
  return -weight * (wrong ? log_p : log_not_p);
}

std::vector<double> network_scores(const ProbeNet &net, const std::vector<double> &params, const ProbeData &data,
                                   const std::vector<int> &indices) {
  std::vector<double> scores;
  scores.reserve(indices.size());
  ForwardCache cache;
  for (int i : indices) {
    const ProbeSample &s = data.samples[i];
    scores.push_back(sigmoid(net.forward(params.data(), s.hidden.data(), s.n_tokens(), nullptr, cache)));
  }
  return scores;
}

bool train_network(const ProbeData &data, const std::vector<SplitRole> &roles, const ProbeNet &net,
                   const TrainOptions &o, TrainResult &result, std::string &error) {
  std::vector<int> train = samples_with_role(roles, SplitRole::train);
  std::vector<int> val = samples_with_role(roles, SplitRole::validation);
  if (!check_split(data, train, "training", error) || !check_split(data, val, "validation", error))
    return false;
  if (!check_train_options(o, error))
    return false;
  int n_wrong = 0;
  for (int i : train)
    n_wrong += data.samples[i].wrong;
  double pos_weight = o.pos_weight > 0 ? o.pos_weight : double(train.size() - n_wrong) / n_wrong;
  std::vector<bool> val_labels;
  for (int i : val)
    val_labels.push_back(data.samples[i].wrong);

  // Independent streams, so e.g. changing the dropout rate does not change the shuffles.
  std::string pool = pool_name(net.pool());
  ProbeRng init_rng(derive_seed(o.seed, "init/" + pool));
  ProbeRng shuffle_rng(derive_seed(o.seed, "shuffle/" + pool));
  ProbeRng dropout_rng(derive_seed(o.seed, "dropout/" + pool));

  std::vector<double> params = net.initial_params(init_rng);
  AdamW adam(params.size(), AdamOptions{o.lr, 0.9, 0.999, 1e-8, o.weight_decay}, weight_decay_mask(net.layout()));
  std::vector<double> grad(params.size());
  ForwardCache cache;
  DropoutMasks masks;
  const double keep_scale = 1.0 / (1.0 - o.dropout);
  auto draw_mask = [&](std::vector<double> &mask, int n) {
    mask.resize(n);
    for (double &m : mask)
      m = dropout_rng.uniform() < o.dropout ? 0.0 : keep_scale;
  };

  result = TrainResult{};
  result.params = params;
  result.best_val_auroc = -1;
  result.pos_weight = pos_weight;
  result.n_train = static_cast<int>(train.size());
  result.n_val = static_cast<int>(val.size());
  std::vector<int> order = train;
  for (int epoch = 1; epoch <= o.max_epochs; ++epoch) {
    shuffle_rng.shuffle(order);
    double epoch_loss = 0;
    for (size_t start = 0; start < order.size(); start += o.batch) {
      size_t end = std::min(order.size(), start + size_t(o.batch));
      std::fill(grad.begin(), grad.end(), 0.0);
      for (size_t k = start; k < end; ++k) {
        const ProbeSample &s = data.samples[order[k]];
        draw_mask(masks.m1, net.shape().m1);
        draw_mask(masks.m2, net.shape().m2);
        double logit = net.forward(params.data(), s.hidden.data(), s.n_tokens(), &masks, cache);
        double dlogit = 0;
        epoch_loss += weighted_bce(logit, s.wrong, pos_weight, &dlogit);
        dlogit /= double(end - start); // the batch loss is the mean over its samples
        net.backward(params.data(), s.hidden.data(), s.n_tokens(), cache, &masks, dlogit, grad.data());
      }
      adam.step(params, grad);
    }
    double val_auroc = auroc(network_scores(net, params, data, val), val_labels);
    result.train_loss.push_back(epoch_loss / double(order.size()));
    result.val_auroc.push_back(val_auroc);
    result.epochs_run = epoch;
    if (val_auroc > result.best_val_auroc) {
      result.best_val_auroc = val_auroc;
      result.best_epoch = epoch;
      result.params = params;
    } else if (epoch - result.best_epoch >= o.patience) {
      break;
    }
  }
  return true;
}

} // namespace saguaro::probe
