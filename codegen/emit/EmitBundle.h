//===- EmitBundle.h - write a compiled bundle to disk ----------------------------------===//
#ifndef SAGUARO_CODEGEN_EMIT_EMITBUNDLE_H
#define SAGUARO_CODEGEN_EMIT_EMITBUNDLE_H

#include "saguaro/model_abi.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace saguaro {

/// A vision tower as a bundle states it: model.cpp's EncoderSpec (model_abi.h) and manifest.json's "vision".
struct BundleVision {
  int64_t maxRows = 0, rowWidth = 0, patchSize = 0, pooling = 0, positionLimit = 0, outDim = 0;
  int64_t tokenId = -1, beginId = -1, endId = -1, padId = 0;
  int64_t layers = 0, dim = 0, hidden = 0, heads = 0, kvHeads = 0, headDim = 0; // its shape, for the manifest
};

/// An audio tower as a bundle states it: model.cpp's EncoderSpec (model_abi.h) and manifest.json's "audio".
struct BundleAudio {
  int64_t maxFrames = 0, mel = 0, outDim = 0;
  int64_t tokenId = -1, beginId = -1, endId = -1, padId = 0;
  int64_t layers = 0, dim = 0, heads = 0, convKernel = 0; // its shape, for the manifest
  int64_t past = 0, channels0 = 0, channels1 = 0, projDims = 0; // keys before a frame, subsampling, output_proj
};

/// The model as a bundle states it: model.cpp's ModelSpec and manifest.json's "model".
struct BundleModel {
  std::string name;         // e.g. "stories260K"
  std::string architecture; // llama2c, llama, qwen3, gemma3
  int64_t dim = 0, hidden = 0, layers = 0, heads = 0, kvHeads = 0, headDim = 0, vocab = 0;
  int64_t maxSeq = 0;           // longest sequence the KV cache holds
  std::vector<int64_t> windows; // each layer's attention window (0: full causal attention); may be empty
  bool probe = false;           // the module has a probe entry point (saguaro_model_probe)
  std::optional<BundleVision> vision; // the module has a vision entry point (saguaro_model_encode_image)
  std::optional<BundleAudio> audio;   // the module has an audio entry point (saguaro_model_encode_audio)
};

/// A stored tensor as the bundle writes it: its bytes stay owned by the caller until emitBundle returns.
struct BundleTensor {
  std::vector<int64_t> shape;
  DType dtype = DType::F32; // F32, F16 or U8
  const void *data = nullptr;
  uint64_t bytes = 0;
};

/// What the bundle writer needs besides the lowered module.
struct BundleInputs {
  BundleModel model;
  /// The stored tensor of a name (weights, quantized codes and norms, codebooks), or none.
  std::function<std::optional<BundleTensor>(llvm::StringRef name)> tensor;
  std::string target = "generic";
  int64_t prefillChunk = 0;
  std::string runtimeSourceDir; // the Saguaro checkout whose runtime-min and kernels are copied
  std::string blobSchemaHeader; // flatc's weights_generated.h (a build product), copied into runtime-min/src
  bool handoff = false;         // also copy handoff/ and link it: saguaro_complete applies the cloud policy
  bool embedWeights = false;    // also the firmware library: libsaguaro_model.a with weights.sgw linked in
  bool threadPool = true;       // false: the runtime is built without a thread pool (and needs no threads library)
  std::vector<uint8_t> tokenizer;                       // tokenizer tensor bytes, may be empty
  std::string tokenizerTensor;                          // e.g. tokenizer.llama2c
  std::vector<uint8_t> chatTemplate;                    // the chat.template tensor, may be empty
  std::vector<std::pair<std::string, std::string>> metadata;
  std::vector<std::pair<std::string, std::string>> sourceHashes; // file name -> xxh64 hex
};

/// Writes model.h, model.cpp (EmitC translation of `module`, which must be fully lowered),
/// main.cpp, CMakeLists.txt, manifest.json, weights.sgw and a copy of the runtime (and with
/// `in.handoff` of the handoff library, with `in.embedWeights` the firmware library's sources) into `outDir`. Files are first written to a sibling
/// temporary directory, which replaces `outDir` only when everything succeeded, `finish` (when given) included:
/// it runs on the temporary directory once every file is written.
llvm::Error emitBundle(mlir::ModuleOp module, const BundleInputs &in, llvm::StringRef outDir,
                       const std::function<llvm::Error(const std::string &dir)> &finish = nullptr);

/// Compiler flags of a target name; fails for an unknown target.
llvm::Expected<std::string> targetFlags(llvm::StringRef target);

} // namespace saguaro

#endif // SAGUARO_CODEGEN_EMIT_EMITBUNDLE_H
