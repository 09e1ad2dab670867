//===- GraphBuilder.h - ModelDesc -> llm dialect ---------------------------------------===//
#ifndef SAGUARO_COMPILER_IMPORT_GRAPHBUILDER_H
#define SAGUARO_COMPILER_IMPORT_GRAPHBUILDER_H

#include "compiler/import/ModelDesc.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace saguaro {
/// Builds a module with two entry points, `prefill` over `prefillChunk` rows and `decode`
/// over one row, both computing the same decoder stack described by `desc`; plus `probe` when
/// it has a probe, `encode_image` when it has a vision tower and `encode_audio` when it has an audio tower.
mlir::OwningOpRef<mlir::ModuleOp> buildGraph(mlir::MLIRContext &ctx, const ModelDesc &desc,
                                             int64_t prefillChunk);

/// Adds the `encode_image` entry (llm.entry = "vision") of desc.vision at `b`'s insertion point
/// (VisionGraphBuilder.cpp).
void buildVisionEntry(mlir::OpBuilder &b, const ModelDesc &desc);

/// Adds the `encode_audio` entry (llm.entry = "audio") of desc.audio and its streamed form
/// `encode_audio_step` (llm.entry = "audio_step") at `b`'s insertion point (AudioGraphBuilder.cpp).
void buildAudioEntry(mlir::OpBuilder &b, const ModelDesc &desc);
} // namespace saguaro

#endif // SAGUARO_COMPILER_IMPORT_GRAPHBUILDER_H
