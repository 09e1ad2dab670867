//===- EmitBundle.h - write a compiled bundle to disk ----------------------------------===//
#ifndef SAGUARO_CODEGEN_EMIT_EMITBUNDLE_H
#define SAGUARO_CODEGEN_EMIT_EMITBUNDLE_H

#include "compiler/import/ModelDesc.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <utility>
#include <vector>

namespace saguaro {

/// What the bundle writer needs besides the lowered module.
struct BundleInputs {
  const ImportedModel *model = nullptr;
  std::string target = "generic";
  int64_t prefillChunk = 0;
  std::string runtimeSourceDir; // the Saguaro checkout whose runtime-min and kernels are copied
  bool handoff = false;         // also copy handoff/ and link it: saguaro_complete applies the cloud policy
  std::vector<uint8_t> tokenizer;                       // tokenizer tensor bytes, may be empty
  std::string tokenizerTensor;                          // e.g. tokenizer.llama2c
  std::vector<uint8_t> chatTemplate;                    // the chat.template tensor, may be empty
  std::vector<std::pair<std::string, std::string>> metadata;
  std::vector<std::pair<std::string, std::string>> sourceHashes; // file name -> xxh64 hex
};

/// Writes model.h, model.cpp (EmitC translation of `module`, which must be fully lowered),
/// main.cpp, CMakeLists.txt, manifest.json, weights.sgw and a copy of the runtime (and with
/// `in.handoff` of the handoff library) into `outDir`. Files are first written to a sibling
/// temporary directory, which replaces `outDir` only when everything succeeded.
llvm::Error emitBundle(mlir::ModuleOp module, const BundleInputs &in, llvm::StringRef outDir);

/// Compiler flags of a target name; fails for an unknown target.
llvm::Expected<std::string> targetFlags(llvm::StringRef target);

} // namespace saguaro

#endif // SAGUARO_CODEGEN_EMIT_EMITBUNDLE_H
