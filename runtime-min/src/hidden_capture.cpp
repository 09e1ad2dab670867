#include "hidden_capture.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace saguaro {

void HiddenCapture::tap_hook(void* ctx, int32_t id, int32_t rows, int32_t cols, const float* x) {
  auto* self = static_cast<HiddenCapture*>(ctx);
  if (id != self->tap_id_ || rows < 1) return;
  if (cols != self->cols_) {
    self->error_ = "the hidden tap has width " + std::to_string(cols) + ", the model says " +
                   std::to_string(self->cols_);
    return;
  }
  std::memcpy(self->last_.data(), x + static_cast<size_t>(rows - 1) * cols, sizeof(float) * cols);
  self->seen_ = true;
}

void HiddenCapture::on_logits(const float* logits, int32_t vocab) {
  if (!seen_) {
    if (error_.empty()) error_ = "the program's hidden tap did not fire before a token was sampled";
    return;
  }
  hidden_.insert(hidden_.end(), last_.begin(), last_.end());
  entropy_.push_back(static_cast<float>(softmax_entropy(logits, vocab)));
}

double softmax_entropy(const float* logits, int32_t n) {
  const float mx = *std::max_element(logits, logits + n);
  double z = 0, zx = 0;  // Σ e^(x−m) and Σ (x−m) e^(x−m): H = log z − zx / z
  for (int32_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(logits[i]) - mx;
    const double e = std::exp(d);
    z += e;
    zx += d * e;
  }
  return std::log(z) - zx / z;
}

}  // namespace saguaro
