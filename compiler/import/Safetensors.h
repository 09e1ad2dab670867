//===- Safetensors.h - reading .safetensors files --------------------------------------===//
#ifndef SAGUARO_COMPILER_IMPORT_SAFETENSORS_H
#define SAGUARO_COMPILER_IMPORT_SAFETENSORS_H

#include "compiler/import/ModelDesc.h"

namespace saguaro {
/// Maps a safetensors file, validates its header against the file, and adds every tensor to
/// `store` as float32 (F32 is viewed in place; BF16 and F16 are converted).
llvm::Error readSafetensors(llvm::StringRef path, WeightStore &store);
} // namespace saguaro

#endif // SAGUARO_COMPILER_IMPORT_SAFETENSORS_H
