// Records what a confidence probe reads while the model answers: for every generated token, the hidden state at
// the program's llm.hidden_tap and the entropy of the next-token distribution it was sampled from (docs/probe.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "saguaro/engine.h"

namespace saguaro {

class HiddenCapture {
 public:
  /// Captures tap `tap_id` of width `cols` (ModelSpec::hidden_tap, ModelSpec::dim).
  HiddenCapture(int32_t tap_id, int32_t cols) : tap_id_(tap_id), cols_(cols), last_(static_cast<size_t>(cols)) {}

  /// The ModelState tap hook (ctx is a HiddenCapture): keeps the last row, the position whose logits come next.
  static void tap_hook(void* ctx, int32_t id, int32_t rows, int32_t cols, const float* x);
  /// The Engine step hook: the logits a token is about to be sampled from; appends one captured row.
  void on_logits(const float* logits, int32_t vocab);

  void clear() { hidden_.clear(), entropy_.clear(), seen_ = false; }
  /// Makes room for `tokens` rows, so that capturing does not allocate.
  void reserve(int32_t tokens) {
    hidden_.reserve(static_cast<size_t>(tokens) * cols_), entropy_.reserve(static_cast<size_t>(tokens));
  }
  int32_t tokens() const { return static_cast<int32_t>(entropy_.size()); }
  const std::vector<float>& hidden() const { return hidden_; }  // tokens() × cols, row-major
  const std::vector<float>& entropy() const { return entropy_; }  // nats, one per token
  /// Set when the tap never fired before a token, or fired with another width.
  const std::string& error() const { return error_; }

 private:
  int32_t tap_id_, cols_;
  std::vector<float> last_;
  bool seen_ = false;
  std::vector<float> hidden_, entropy_;
  std::string error_;
};

/// Entropy in nats of softmax(logits), computed in double.
double softmax_entropy(const float* logits, int32_t n);

}  // namespace saguaro
