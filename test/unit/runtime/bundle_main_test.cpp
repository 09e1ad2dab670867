// The bundle program: generation output, --logits .npy, and one-line errors with exit code 1.
#include "saguaro/bundle_main.h"

#include <gtest/gtest.h>

#include <cstring>
#include <algorithm>

#include "fake_model.h"
#include "test_util.h"

namespace saguaro {
namespace {

int run(std::vector<std::string> args) {
  args.insert(args.begin(), "saguaro_bundle");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return bundle_main(static_cast<int>(argv.size()), argv.data());
}

class BundleMain : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::make_temp_dir();
    ASSERT_FALSE(test::write_fake_bundle(dir_).empty());
  }
  std::string dir_;
};

TEST_F(BundleMain, GeneratesLikeRunC) {
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  EXPECT_EQ(run({dir_, "-p", "a", "-t", "0", "-n", "16"}), 0);
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "ababa\n");
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("achieved tok/s: "), std::string::npos) << err;
  EXPECT_NE(err.find("peak_rss_bytes="), std::string::npos) << err;
}

// --mmap maps weights.sgw instead of reading it: the same tokens.
TEST_F(BundleMain, MappedWeightsGenerateTheSame) {
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  EXPECT_EQ(run({dir_, "-p", "a", "-t", "0", "-n", "16", "--mmap"}), 0);
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "ababa\n");
  testing::internal::GetCapturedStderr();
}

TEST_F(BundleMain, WritesLogitsNpy) {
  test::write_file(dir_ + "/ids.txt", "1 262\n261\n");
  testing::internal::CaptureStderr();
  EXPECT_EQ(run({dir_, "--logits", dir_ + "/ids.txt", "-o", dir_ + "/out.npy"}), 0);
  testing::internal::GetCapturedStderr();
  const std::string npy = test::read_file(dir_ + "/out.npy");
  ASSERT_GT(npy.size(), 128u);
  EXPECT_EQ(npy.substr(0, 6), "\x93NUMPY");
  const uint16_t hlen = static_cast<uint8_t>(npy[8]) | static_cast<uint8_t>(npy[9]) << 8;
  EXPECT_EQ((10 + hlen) % 64, 0);
  EXPECT_NE(npy.find("'shape': (3, 264)"), std::string::npos);
  ASSERT_EQ(npy.size(), 10u + hlen + 3 * test::kFakeVocab * 4);
  float v;
  std::memcpy(&v, npy.data() + 10 + hlen + 262 * 4, 4);  // row 0 (token 1) → 262 has logit 10
  EXPECT_EQ(v, 10.0f);
}

// Every bad input: exit code 1 and exactly one "saguaro: ..." line on stderr.
TEST_F(BundleMain, BadInputsFailWithOneLine) {
  test::write_file(dir_ + "/bad_ids.txt", "1 x");
  test::write_file(dir_ + "/broken.sgw", "garbage");
  const std::vector<std::vector<std::string>> cases = {
      {},
      {dir_ + "/missing"},
      {dir_ + "/broken.sgw", "-p", "a"},
      {dir_, "-n"},
      {dir_, "-n", "abc"},
      {dir_, "-t", "-1"},
      {dir_, "--top-p", "2"},
      {dir_, "--frobnicate", "1"},
      {dir_, "--logits", dir_ + "/bad_ids.txt", "-o", dir_ + "/o.npy"},
      {dir_, "--logits", dir_ + "/none.txt", "-o", dir_ + "/o.npy"},
      {dir_, "--logits", dir_ + "/bad_ids.txt"},
      {dir_, "-p", std::string(200, 'b')},
      {dir_ + "/broken.sgw", "-p", "a", "--mmap"},
      {dir_, "--complete", dir_ + "/m.json", "--mmap"},
  };
  for (const auto& c : cases) {
    testing::internal::CaptureStderr();
    testing::internal::CaptureStdout();
    const int rc = run(c);
    const std::string err = testing::internal::GetCapturedStderr();
    testing::internal::GetCapturedStdout();
    EXPECT_EQ(rc, 1) << (c.empty() ? "" : c.back());
    EXPECT_EQ(err.rfind("saguaro: ", 0), 0u) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  }
}

}  // namespace
}  // namespace saguaro
