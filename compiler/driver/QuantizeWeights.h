//===- QuantizeWeights.h - store the weights the cq-quantize pass chose ----------------===//
#ifndef SAGUARO_COMPILER_DRIVER_QUANTIZEWEIGHTS_H
#define SAGUARO_COMPILER_DRIVER_QUANTIZEWEIGHTS_H

#include "compiler/driver/Calibrate.h"
#include "compiler/import/ModelDesc.h"
#include "mlir/IR/BuiltinOps.h"

#include <optional>

namespace saguaro {

/// Quantizes every weight named in the module's `cq.quantized` attribute into `NAME.codes` and
/// `NAME.norms` tensors of the store, and adds the codebooks the kernels read
/// (`cq.codebook.b<bits>.g<group>`). A weight with an entry in `hessians` is quantized with GPTQ-style
/// error feedback (docs/quantization.md), damped by `damp`, or by quant::default_damp of its bits when unset.
/// Shows a progress bar and the time taken on stderr.
llvm::Error quantizeWeights(mlir::ModuleOp module, ImportedModel &model, const HessianMap &hessians,
                            std::optional<float> damp);

/// Parses a --policy file: a JSON object mapping tensor names, or the kinds "linear" and
/// "embedding", to bits (1-4, 16 or 32); fills `policy` with one entry per named tensor.
llvm::Error readPolicy(llvm::StringRef path, const ImportedModel &model,
                       std::vector<std::pair<std::string, int64_t>> &policy);

} // namespace saguaro

#endif // SAGUARO_COMPILER_DRIVER_QUANTIZEWEIGHTS_H
