//===- train_probe.cpp - `probe train` as one library call ------------------------------===//
#include "probe/train_probe.h"

#include "probe/probe_head.h"
#include "probe/train_options.h"

namespace saguaro::probe {

bool train_probe(const ProbeData &data, const TrainOptions &options, ProbeWeights &probe, TrainResult &result,
                 std::string &error) {
  if (!check_train_options(options, error))
    return false;
  std::vector<SplitRole> roles = split_samples(data, options.seed, options.val_fraction);
  ProbeNet net(ProbeShape{data.width, options.h, options.m1, options.m2}, PoolKind::attention);
  if (!train_network(data, roles, net, options, result, error))
    return false;
  probe = ProbeWeights{};
  probe.shape = net.shape();
  probe.model = data.model;
  probe.tap_layer = data.tap_layer;
  probe.train_json = train_json(options, result);
  probe.params = to_float_params(result.params);
  return true;
}

} // namespace saguaro::probe
