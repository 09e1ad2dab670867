#include "gram_accumulator.h"

#include "saguaro/npy_writer.h"

namespace saguaro {

void GramAccumulator::add(int32_t id, int32_t rows, int32_t cols, const float* x) {
  if (id < 0 || cols <= 0) return;
  if (static_cast<size_t>(id) >= taps_.size()) taps_.resize(static_cast<size_t>(id) + 1);
  Tap& t = taps_[static_cast<size_t>(id)];
  if (t.cols == 0) {
    t.cols = cols;
    t.sum.assign(static_cast<size_t>(cols) * cols, 0.0);
  } else if (t.cols != cols) {
    error_ = "tap " + std::to_string(id) + " changed width from " + std::to_string(t.cols) + " to " +
             std::to_string(cols);
    return;
  }
  for (int32_t r = 0; r < rows; ++r) {
    const float* v = x + static_cast<int64_t>(r) * cols;
    for (int32_t i = 0; i < cols; ++i) {
      const double vi = v[i];
      double* row = t.sum.data() + static_cast<size_t>(i) * cols;
      for (int32_t j = i; j < cols; ++j) row[j] += vi * v[j];
    }
  }
  t.rows += rows;
}

void GramAccumulator::hook(void* ctx, int32_t id, int32_t rows, int32_t cols, const float* x) {
  static_cast<GramAccumulator*>(ctx)->add(id, rows, cols, x);
}

bool GramAccumulator::write(const std::string& dir, std::string* err) const {
  if (!error_.empty()) return *err = error_, false;
  for (size_t id = 0; id < taps_.size(); ++id) {
    const Tap& t = taps_[id];
    if (t.rows == 0) continue;
    const size_t n = static_cast<size_t>(t.cols);
    std::vector<float> mean(n * n);
    for (size_t i = 0; i < n; ++i)
      for (size_t j = i; j < n; ++j)
        mean[i * n + j] = mean[j * n + i] = static_cast<float>(t.sum[i * n + j] / static_cast<double>(t.rows));
    if (!write_npy_f32(dir + "/tap" + std::to_string(id) + ".npy", mean, n, n, err)) return false;
  }
  return true;
}

}  // namespace saguaro
