//===- FirmwareBundle.h - a bundle with the firmware library built ---------------------===//
#ifndef SAGUARO_COMPILER_DRIVER_FIRMWAREBUNDLE_H
#define SAGUARO_COMPILER_DRIVER_FIRMWAREBUNDLE_H

#include "codegen/emit/EmitBundle.h"
#include "compiler/driver/Compile.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <string>

namespace saguaro {

/// What --embed-weights cannot take, before anything is imported: the cloud handoff (it reads credentials and a
/// spend ledger from files), or a target of another architecture with no CMAKE_TOOLCHAIN_FILE to build it with.
llvm::Error checkEmbeddable(const CompileOptions &options);

/// Writes the bundle of `module` (emitBundle) with its firmware library built: libsaguaro_model.a in the bundle
/// directory, and manifest.json's "firmware" sizes measured from the ELF sections of the program size_probe.c
/// links (docs/firmware.md). All or nothing: `outDir` changes only when the library built.
llvm::Error emitFirmwareBundle(mlir::ModuleOp module, const BundleInputs &in, const std::string &outDir);

} // namespace saguaro

#endif // SAGUARO_COMPILER_DRIVER_FIRMWAREBUNDLE_H
