//===- Probe.cpp - `saguaro probe train|eval|calibrate` ---------------------------------===//
//
// The three commands' table entries and handlers; the work is in probe/ (saguaro_probe). This
// file builds with and without exceptions (the driver uses LLVM's -fno-exceptions), so it parses
// numbers with strtod/strtoull and calls only the library's error-returning API.
//
//===------------------------------------------------------------------------------------===//
#include "compiler/driver/Probe.h"

#include "probe/byte_io.h"
#include "probe/evaluate.h"
#include "probe/probe_data.h"
#include "probe/probe_file.h"
#include "probe/train_probe.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace saguaro::probe;
namespace cli = saguaro::cli;

namespace {

int fail(const std::string &message) {
  std::fprintf(stderr, "saguaro probe: %s\n", message.c_str());
  return 1;
}

/// The usage lines of every `saguaro probe` command (a wrong number of arguments).
int usage() {
  std::fputs(cli::usageLines(saguaro::probeCommands(), "probe ").c_str(), stderr);
  return 2;
}

/// `saguaro probe` says its option errors in its own words (test/unit/probe/cli_test.cpp).
int refuse(const cli::ParseError &error) {
  if (error.kind == cli::ParseError::UnknownOption)
    return fail("unknown option " + error.arg);
  if (error.kind == cli::ParseError::MissingValue)
    return fail(error.arg + " needs a value");
  return usage();
}

bool parse_double(const std::string &flag, const char *text, double &out, std::string &error) {
  char *end = nullptr;
  errno = 0;
  out = std::strtod(text, &end);
  if (errno != 0 || end == text || *end != '\0') {
    error = flag + " expects a number, got '" + text + "'";
    return false;
  }
  return true;
}

bool parse_int(const std::string &flag, const char *text, long long min, long long &out, std::string &error) {
  char *end = nullptr;
  errno = 0;
  out = std::strtoll(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || out < min || out > (1ll << 30)) {
    error = flag + " expects an integer >= " + std::to_string(min) + ", got '" + text + "'";
    return false;
  }
  return true;
}

int run_train(const cli::Args &args) {
  std::string error;
  TrainOptions o;
  std::string out_path;
  // Each numeric option and the field it sets.
  const std::pair<const char *, int *> int_options[] = {{"--h", &o.h},           {"--m1", &o.m1},
                                                        {"--m2", &o.m2},         {"--batch", &o.batch},
                                                        {"--epochs", &o.max_epochs}, {"--patience", &o.patience}};
  const std::pair<const char *, double *> real_options[] = {{"--val-fraction", &o.val_fraction},
                                                            {"--lr", &o.lr},
                                                            {"--weight-decay", &o.weight_decay},
                                                            {"--dropout", &o.dropout},
                                                            {"--pos-weight", &o.pos_weight}};
  for (const auto &[flag, value] : args.given) {
    bool ok = true;
    if (flag == "-o") {
      out_path = value;
    } else if (flag == "--seed") {
      char *end = nullptr;
      errno = 0;
      o.seed = std::strtoull(value.c_str(), &end, 10);
      ok = errno == 0 && end != value.c_str() && *end == '\0' && value[0] != '-';
      if (!ok)
        error = "--seed expects a non-negative integer, got '" + value + "'";
    }
    for (const auto &[name, field] : int_options) {
      long long parsed = 0;
      if (flag == name && (ok = parse_int(flag, value.c_str(), 1, parsed, error)))
        *field = static_cast<int>(parsed);
    }
    for (const auto &[name, field] : real_options)
      if (flag == name)
        ok = parse_double(flag, value.c_str(), *field, error);
    if (!ok)
      return fail(error);
  }
  if (out_path.empty())
    return fail("train needs -o PROBE");
  if (!check_train_options(o, error))
    return fail("invalid option: " + error);

  const std::string &data_path = args.positional[0];
  ProbeData data;
  if (!read_probe_data(data_path, data, error))
    return fail(error);
  ProbeWeights probe;
  TrainResult result;
  if (!train_probe(data, o, probe, result, error))
    return fail(data_path + ": " + error);
  if (!write_probe_file(out_path, probe, error))
    return fail(error);
  if (args.has("--verbose"))
    for (size_t e = 0; e < result.train_loss.size(); ++e)
      std::printf("epoch %3zu  training loss %.5f  validation AUROC %.4f%s\n", e + 1, result.train_loss[e],
                  result.val_auroc[e], int(e) + 1 == result.best_epoch ? "  (best, kept)" : "");
  std::printf("trained on %d samples (validation %d, held-out families excluded): best validation AUROC %.4f at "
              "epoch %d of %d; wrote %s (%zu parameters)\n",
              result.n_train, result.n_val, result.best_val_auroc, result.best_epoch, result.epochs_run,
              out_path.c_str(), probe.params.size());
  return 0;
}

/// Reads PROBE and DATA (the two positional arguments).
bool load(const cli::Args &args, ProbeWeights &probe, ProbeData &data, std::string &error) {
  return read_probe_file(args.positional[0], probe, error) && read_probe_data(args.positional[1], data, error);
}

int run_eval(const cli::Args &args) {
  std::string error;
  EvalOptions options;
  std::string scores_path;
  for (const auto &[flag, value] : args.given) {
    if (flag == "--scores") {
      scores_path = value;
      options.want_scores = true;
    } else if (flag == "--cloud-accuracy") {
      if (!parse_double(flag, value.c_str(), options.cloud_accuracy, error))
        return fail(error);
      if (!(options.cloud_accuracy >= 0 && options.cloud_accuracy <= 1))
        return fail("--cloud-accuracy must be between 0 and 1");
      options.has_cloud_accuracy = true;
    }
  }
  ProbeWeights probe;
  ProbeData data;
  EvalOutput out;
  if (!load(args, probe, data, error) ||
      !evaluate_probe(probe, args.positional[0], data, args.positional[1], options, out, error))
    return fail(error);
  if (!scores_path.empty() && !write_file_atomically(scores_path, out.scores_json, error))
    return fail(error);
  std::fputs(args.has("--json") ? out.json.c_str() : out.table.c_str(), stdout);
  return 0;
}

int run_calibrate(const cli::Args &args) {
  if (!args.has("--handoff-rate"))
    return usage();
  std::string error;
  double rate = 0;
  if (!parse_double("--handoff-rate", args.value("--handoff-rate").c_str(), rate, error))
    return fail(error);
  ProbeWeights probe;
  ProbeData data;
  Calibration c;
  if (!load(args, probe, data, error) ||
      !calibrate_threshold(probe, args.positional[0], data, args.positional[1], rate, c, error))
    return fail(error);
  if (args.has("--json"))
    std::fputs(calibration_json(c, rate).c_str(), stdout);
  else
    std::printf("threshold %.9g: hand off when p(wrong) >= threshold\n"
                "  validation: %d samples, %.4f handed off (requested %.4f)\n"
                "  held-out:   %d samples, %.4f handed off\n",
                c.threshold, c.validation_n, c.validation_rate, rate, c.heldout_n, c.heldout_rate);
  return 0;
}

} // namespace

const std::vector<cli::Command> &saguaro::probeCommands() {
  static const std::vector<cli::Command> commands = {
      {"probe train", "DATA -o PROBE [options]",
       "train the confidence probe on collected data (held-out families excluded)",
       {{"-o", "PROBE", "the probe file (required)"},
        {"--seed", "S", "default 1"},
        {"--h", "H", "width of the per-token projection; default 32"},
        {"--m1", "M1", "width of the first MLP layer; default 128"},
        {"--m2", "M2", "width of the second MLP layer; default 64"},
        {"--val-fraction", "F", "validation share of the training families' samples; default 0.2"},
        {"--lr", "LR", "Adam learning rate; default 2e-3"},
        {"--weight-decay", "WD", "default 1e-2"},
        {"--dropout", "P", "on both MLP layers, training only; default 0.1"},
        {"--batch", "B", "default 32"},
        {"--epochs", "E", "at most; default 200"},
        {"--patience", "K", "epochs without a better validation AUROC before stopping; default 20"},
        {"--pos-weight", "W", "weight of the wrong answers; default 0: n_right / n_wrong"},
        {"--verbose", "", "print each epoch's loss and validation AUROC"}},
       run_train, 1, 1, false, refuse},
      {"probe eval", "PROBE DATA [--json] [--cloud-accuracy A] [--scores FILE]",
       "AUROC of the probe and its baselines on the held-out families, and the handoff curve",
       {cli::kJsonOption,
        {"--cloud-accuracy", "A", "the cloud model's accuracy, 0 to 1, for the handoff curve"},
        {"--scores", "FILE", "write every sample's p(wrong) as JSON"}},
       run_eval, 2, 2, false, refuse},
      {"probe calibrate", "PROBE DATA --handoff-rate R [--json]",
       "the p(wrong) threshold that hands off the fraction R of the validation samples",
       {{"--handoff-rate", "R", "the fraction to hand off (required)"}, {"--json", "", "print JSON"}},
       run_calibrate, 2, 2, false, refuse},
  };
  return commands;
}

int saguaro::probe_main(int argc, char **argv) {
  std::vector<std::string> words = {"probe"};
  words.insert(words.end(), argv, argv + argc);
  return cli::dispatch(probeCommands(), words);
}
