//===- Calibrate.h - measure XᵀX of every weight's input on calibration text -----------===//
#ifndef SAGUARO_COMPILER_DRIVER_CALIBRATE_H
#define SAGUARO_COMPILER_DRIVER_CALIBRATE_H

#include "compiler/driver/Compile.h"

#include <map>
#include <string>
#include <vector>

namespace saguaro {

/// Weight name -> the mean XᵀX (K×K, row-major float32) of the activations X it multiplies. Every entry has
/// passed quant::hessian_error for the weight's K (the tap's width is the width of the weight's input).
using HessianMap = std::map<std::string, std::vector<float>>;

/// Compiles a float32 calibration build of `model` (kern-insert-calibration-taps), runs the text of
/// `calibrationText` through it in windows of up to 256 tokens (at most `maxTokens` tokens), and returns
/// the Gram matrix of the input of every float weight matrix. Errors name the file at fault.
llvm::Error measureHessians(const CompileOptions &model, const std::string &calibrationText, HessianMap &hessians,
                            int maxTokens = 8192);

/// Same, on token ids given directly: a file with one sequence (fed from position 0) per line.
llvm::Error measureHessiansOnIds(const CompileOptions &model, const std::string &idsPath, HessianMap &hessians);

/// The text of a calibration file; an error naming it when it is missing or empty.
llvm::Error checkCalibrationText(const std::string &path);

} // namespace saguaro

#endif // SAGUARO_COMPILER_DRIVER_CALIBRATE_H
