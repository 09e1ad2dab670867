//===- Eval.h - `saguaro eval` ---------------------------------------------------------===//
#ifndef SAGUARO_COMPILER_DRIVER_EVAL_H
#define SAGUARO_COMPILER_DRIVER_EVAL_H

#include <string>
#include <vector>

namespace saguaro {

struct EvalOptions {
  std::string model, tokenizer, text;
  std::vector<int> bits = {4, 3, 2};
  std::vector<std::string> methods = {"cq", "rtn-asym", "rtn-sym"};
  int maxTokens = 2048;
  bool json = false;
};

/// Measures quantization quality on a text: per (method, bits), stored bits per weight, mean
/// KL(fp32 || quantized) of the next-token distributions, top-1 agreement with fp32 and
/// perplexity, all from logits of the same compiled program in one run. Returns the exit code.
int runEval(const EvalOptions &options);

} // namespace saguaro

#endif // SAGUARO_COMPILER_DRIVER_EVAL_H
