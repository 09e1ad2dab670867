//===- Synth.h - `saguaro synth`: random-weight models with real shapes ----------------===//
#ifndef SAGUARO_COMPILER_DRIVER_SYNTH_H
#define SAGUARO_COMPILER_DRIVER_SYNTH_H

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace saguaro {

/// Writes a Hugging Face model directory `outDir` (config.json copied from `config`, one
/// model.safetensors) whose weights are seeded random normals with the config's shapes.
/// Tensors are streamed to the file; nothing is left at `outDir` on failure.
llvm::Error synthesizeModel(const std::string &config, const std::string &outDir, uint64_t seed);

} // namespace saguaro

#endif // SAGUARO_COMPILER_DRIVER_SYNTH_H
