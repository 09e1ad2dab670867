// HiddenCapture (the rows a probe reads) and softmax_entropy, against direct computations.
#include "hidden_capture.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace saguaro {
namespace {

TEST(SoftmaxEntropy, UniformIsLogN) {
  const std::vector<float> logits(71, 3.5f);
  EXPECT_NEAR(softmax_entropy(logits.data(), 71), std::log(71.0), 1e-12);
}

TEST(SoftmaxEntropy, MatchesTheDefinition) {
  const std::vector<float> logits = {2.0f, -1.0f, 0.5f, 7.0f, 7.0f, -30.0f};
  double z = 0, h = 0;
  for (float x : logits) z += std::exp(static_cast<double>(x));
  for (float x : logits) {
    const double p = std::exp(static_cast<double>(x)) / z;
    h -= p * std::log(p);
  }
  EXPECT_NEAR(softmax_entropy(logits.data(), static_cast<int32_t>(logits.size())), h, 1e-12);
}

TEST(HiddenCapture, KeepsTheLastRowOfItsTapPerSampledToken) {
  HiddenCapture c(/*tap_id=*/2, /*cols=*/3);
  const float prefill[] = {1, 2, 3, 4, 5, 6};  // two rows: the prompt's last position is the second
  const float other[] = {9, 9, 9};
  const float logits[] = {0.0f, 0.0f};
  HiddenCapture::tap_hook(&c, 2, 2, 3, prefill);
  HiddenCapture::tap_hook(&c, 0, 1, 3, other);  // another tap id: ignored
  c.on_logits(logits, 2);
  const float decode[] = {7, 8, 9};
  HiddenCapture::tap_hook(&c, 2, 1, 3, decode);
  c.on_logits(logits, 2);
  ASSERT_EQ(c.tokens(), 2);
  EXPECT_EQ(c.hidden(), (std::vector<float>{4, 5, 6, 7, 8, 9}));
  EXPECT_NEAR(c.entropy()[0], std::log(2.0), 1e-6);
  EXPECT_TRUE(c.error().empty());
}

TEST(HiddenCapture, ReportsATapThatNeverFiredOrChangedWidth) {
  HiddenCapture c(0, 4);
  const float logits[] = {1.0f};
  c.on_logits(logits, 1);
  EXPECT_EQ(c.tokens(), 0);
  EXPECT_NE(c.error().find("did not fire"), std::string::npos);
  HiddenCapture w(0, 4);
  const float row[] = {1, 2, 3};
  HiddenCapture::tap_hook(&w, 0, 1, 3, row);
  EXPECT_NE(w.error().find("width 3"), std::string::npos);
}

}  // namespace
}  // namespace saguaro
