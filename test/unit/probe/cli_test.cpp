//===- cli_test.cpp - `saguaro probe` on good and bad inputs ----------------------------===//
#include "compiler/driver/Probe.h"
#include "probe/probe_data.h"
#include "synthetic.h"
#include "test_util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>

using namespace saguaro::probe;
using namespace saguaro::probe::testing;

namespace {

struct RunResult {
  int code;
  std::string out, err;
};

RunResult run(std::vector<std::string> args) {
  std::vector<char *> argv;
  for (std::string &a : args)
    argv.push_back(a.data());
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  int code = saguaro::probe_main(static_cast<int>(argv.size()), argv.data());
  return {code, ::testing::internal::GetCapturedStdout(), ::testing::internal::GetCapturedStderr()};
}

/// An error is one line, names the file, and the exit code is non-zero.
void expect_one_line_error(const RunResult &r, const std::string &must_contain) {
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find(must_contain), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

std::string write_data(const std::string &name, const SyntheticOptions &o) {
  std::string path = temp_path(name), error;
  EXPECT_TRUE(write_probe_data(path, make_synthetic(o), error)) << error;
  return path;
}

/// Data and a quickly trained probe shared by the tests below.
class ProbeCli : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    SyntheticOptions o;
    o.per_family = 80;
    data_path_ = write_data("cli-data.sgprb", o);
    probe_path_ = temp_path("cli-probe.sgp");
    RunResult r = run({"train", data_path_, "-o", probe_path_, "--epochs", "10", "--seed", "4"});
    ASSERT_EQ(r.code, 0) << r.err;
  }
  static std::string data_path_, probe_path_;
};
std::string ProbeCli::data_path_, ProbeCli::probe_path_;

} // namespace

TEST_F(ProbeCli, EvalJsonHasTheDocumentedKeys) {
  RunResult r = run({"eval", probe_path_, data_path_, "--json", "--cloud-accuracy", "0.9"});
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  for (const char *key : {"n", "accuracy", "probe_auroc", "meanpool_auroc", "logreg_auroc", "entropy_mean_auroc",
                          "entropy_max_auroc", "entropy_first_auroc", "cell_baseline_auroc",
                          "probe_within_cell_auroc", "entropy_within_cell_auroc"})
    EXPECT_TRUE(j["heldout"].contains(key)) << key;
  EXPECT_EQ(j["heldout"]["n"], 160);
  EXPECT_EQ(j["families"].size(), 6u);
  ASSERT_EQ(j["handoff_curve"].size(), 21u);
  // Handing everything off with a perfect cloud gives accuracy 1; with A = 0.9, 0.9.
  EXPECT_DOUBLE_EQ(j["handoff_curve"][20]["accuracy_cloud_right"].get<double>(), 1.0);
  EXPECT_NEAR(j["handoff_curve"][20]["accuracy_with_cloud"].get<double>(), 0.9, 1e-12);
  EXPECT_NEAR(j["handoff_curve"][0]["accuracy_cloud_right"].get<double>(), j["heldout"]["accuracy"].get<double>(),
              1e-12);

  RunResult table = run({"eval", probe_path_, data_path_});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("held-out families, pooled"), std::string::npos) << table.out;
}

TEST_F(ProbeCli, EvalOnHeldOutOnlyDataReportsBaselinesAsUnavailable) {
  ProbeData data = make_synthetic(30);
  data.samples.erase(std::remove_if(data.samples.begin(), data.samples.end(),
                                    [](const ProbeSample &s) { return !s.heldout; }),
                     data.samples.end());
  std::string path = temp_path("cli-heldout-only.sgprb"), error;
  ASSERT_TRUE(write_probe_data(path, data, error)) << error;
  RunResult r = run({"eval", probe_path_, path, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["heldout"]["meanpool_auroc"].is_null());
  EXPECT_TRUE(j["heldout"]["logreg_auroc"].is_null());
  EXPECT_TRUE(j["heldout"]["probe_auroc"].is_number());
  EXPECT_EQ(j["notes"].size(), 2u);
}

TEST_F(ProbeCli, CalibrateHandsOffTheRequestedFraction) {
  RunResult r = run({"calibrate", probe_path_, data_path_, "--handoff-rate", "0.25", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  int n = j["validation_n"];
  EXPECT_GT(n, 40);
  EXPECT_NEAR(j["validation_handoff_rate"].get<double>(), 0.25, 0.5 / n + 1e-12);
  expect_one_line_error(run({"calibrate", probe_path_, data_path_, "--handoff-rate", "1.5"}), "between 0 and 1");
}

TEST_F(ProbeCli, RefusesProbeOfAnotherWidth) {
  SyntheticOptions o;
  o.width = 16;
  o.per_family = 10;
  std::string narrow = write_data("cli-narrow.sgprb", o);
  expect_one_line_error(run({"eval", probe_path_, narrow}),
                        probe_path_ + ": the probe expects width 32 but " + narrow + " has width 16");
}

TEST_F(ProbeCli, RefusesTruncatedAndNaNDataWithoutWritingAProbe) {
  std::string bytes = slurp(data_path_);
  std::string truncated = temp_path("cli-truncated.sgprb"), out = temp_path("cli-never.sgp");
  spit(truncated, bytes.substr(0, bytes.size() - 100));
  expect_one_line_error(run({"train", truncated, "-o", out}), truncated + ": truncated");
  EXPECT_FALSE(std::filesystem::exists(out));

  // NaN in the hidden state of the last sample: patch the float 8 + 4 floats before the end.
  std::string nan_path = temp_path("cli-nan.sgprb");
  std::string patched = bytes;
  float nan = std::nanf("");
  std::memcpy(&patched[patched.size() - 8 - 4 * 12], &nan, 4);
  spit(nan_path, patched);
  RunResult r = run({"train", nan_path, "-o", out});
  expect_one_line_error(r, "non-finite");
  EXPECT_NE(r.err.find(nan_path), std::string::npos);
  EXPECT_NE(r.err.find("sample '"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST_F(ProbeCli, RefusesOneClassDataAndBadArguments) {
  ProbeData data = make_synthetic(SyntheticOptions{});
  for (ProbeSample &s : data.samples)
    s.wrong = true;
  std::string path = temp_path("cli-one-class.sgprb"), out = temp_path("cli-one-class.sgp"), error;
  ASSERT_TRUE(write_probe_data(path, data, error)) << error;
  expect_one_line_error(run({"train", path, "-o", out}), "only one class");
  EXPECT_FALSE(std::filesystem::exists(out));
  expect_one_line_error(run({"train", data_path_, "-o", out, "--seed", "x"}), "--seed");
  expect_one_line_error(run({"train", data_path_, "-o", out, "--bogus"}), "unknown option --bogus");
  expect_one_line_error(run({"eval", data_path_, data_path_}), "not a probe file");
  EXPECT_NE(run({"frobnicate"}).code, 0);
}
