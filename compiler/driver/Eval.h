//===- Eval.h - `saguaro eval` ---------------------------------------------------------===//
#ifndef SAGUARO_COMPILER_DRIVER_EVAL_H
#define SAGUARO_COMPILER_DRIVER_EVAL_H

#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace saguaro {

struct EvalOptions {
  std::string model, tokenizer, text;
  std::string tasks; // optional file of PROMPT<TAB>ANSWER lines: greedy task accuracy per configuration
  std::string calibration; // optional text: CQ gets error feedback from it; GPTQ needs it
  std::string scoreAfter;  // optional marker: only tokens after it in each document are scored
  // Error feedback (CQ, GPTQ): damping relative to the mean of diag(H); unset: quant::default_damp(bits) per matrix.
  std::optional<float> damp;
  std::vector<int> bits = {4, 3, 2};
  std::vector<std::string> methods = {"cq", "rtn-asym", "rtn-sym"};
  int maxTokens = 2048;
  double bpw = 0; // > 0: also a mixed-precision CQ row allocated for this budget
  bool json = false;
};

/// Measures quantization quality on a text: per (method, bits), stored bits per weight, mean
/// KL(fp32 || quantized) of the next-token distributions, top-1 agreement with fp32 and
/// perplexity, all from logits of the same compiled program in one run. With a calibration text,
/// CQ uses GPTQ-style error feedback and the `gptq` baseline can run. Returns the exit code.
int runEval(const EvalOptions &options);

/// Mixed precision: measures each weight matrix's KL when it alone is CQ-quantized at 2, 3 and 4
/// bits (on the tokens of `calibration`, or 256 deterministic ids when it is empty), then gives
/// bits to the matrices that save the most KL per stored bit until `bpw` bits per weight are spent.
llvm::Error allocateBits(const std::string &model, const std::string &tokenizer, const std::string &calibration,
                         double bpw, std::vector<std::pair<std::string, int64_t>> &policy);

} // namespace saguaro

#endif // SAGUARO_COMPILER_DRIVER_EVAL_H
