// Accumulates XᵀX of the activations a calibration build's taps hand over (one matrix per tap id).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace saguaro {

/// The mean outer product (1/rows) Σ x xᵀ per tap id, in double precision; the input of GPTQ-style
/// error feedback (docs/quantization.md, "Error feedback").
class GramAccumulator {
 public:
  /// Adds rows x[0..rows) of width cols to tap `id`; a tap's width must not change.
  void add(int32_t id, int32_t rows, int32_t cols, const float* x);
  /// The ModelState tap hook: ctx is a GramAccumulator.
  static void hook(void* ctx, int32_t id, int32_t rows, int32_t cols, const float* x);
  /// Writes DIR/tap<ID>.npy (float32 [cols, cols]) for every tap seen; false + err on failure.
  bool write(const std::string& dir, std::string* err) const;
  /// Set when a tap changed width between calls (a program/ABI mismatch).
  const std::string& error() const { return error_; }

 private:
  struct Tap {
    int32_t cols = 0;
    int64_t rows = 0;
    std::vector<double> sum;  // upper triangle used; cols × cols
  };
  std::vector<Tap> taps_;
  std::string error_;
};

}  // namespace saguaro
