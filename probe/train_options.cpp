//===- train_options.cpp - TrainOptions to and from JSON --------------------------------===//
#include "probe/train_options.h"

#include <nlohmann/json.hpp>

namespace saguaro::probe {

std::string train_json(const TrainOptions &o, const TrainResult &r) {
  nlohmann::json options = {{"h", o.h},
                            {"m1", o.m1},
                            {"m2", o.m2},
                            {"seed", o.seed},
                            {"val_fraction", o.val_fraction},
                            {"lr", o.lr},
                            {"weight_decay", o.weight_decay},
                            {"dropout", o.dropout},
                            {"batch", o.batch},
                            {"max_epochs", o.max_epochs},
                            {"patience", o.patience},
                            {"pos_weight", o.pos_weight}};
  nlohmann::json summary = {{"best_epoch", r.best_epoch}, {"epochs_run", r.epochs_run},
                            {"best_val_auroc", r.best_val_auroc}, {"pos_weight", r.pos_weight},
                            {"n_train", r.n_train}, {"n_val", r.n_val}};
  return nlohmann::json{{"options", options}, {"summary", summary}}.dump();
}

bool parse_train_options(const std::string &text, TrainOptions &o, std::string &error) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("options") || !j["options"].is_object()) {
    error = "the probe's metadata lacks the training options";
    return false;
  }
  const nlohmann::json &opt = j["options"];
  TrainOptions out;
  bool ok = true;
  auto integer = [&](const char *name, int &v) {
    if (opt.contains(name) && opt[name].is_number_integer())
      v = opt[name].get<int>();
    else
      ok = false;
  };
  auto number = [&](const char *name, double &v) {
    if (opt.contains(name) && opt[name].is_number())
      v = opt[name].get<double>();
    else
      ok = false;
  };
  integer("h", out.h);
  integer("m1", out.m1);
  integer("m2", out.m2);
  integer("batch", out.batch);
  integer("max_epochs", out.max_epochs);
  integer("patience", out.patience);
  number("val_fraction", out.val_fraction);
  number("lr", out.lr);
  number("weight_decay", out.weight_decay);
  number("dropout", out.dropout);
  number("pos_weight", out.pos_weight);
  if (opt.contains("seed") && opt["seed"].is_number_unsigned())
    out.seed = opt["seed"].get<uint64_t>();
  else
    ok = false;
  if (!ok) {
    error = "the probe's training options are incomplete or mistyped";
    return false;
  }
  o = out;
  return true;
}

} // namespace saguaro::probe
