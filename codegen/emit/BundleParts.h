//===- BundleParts.h - the parts of the bundle writer ----------------------------------===//
//
// emitBundle (EmitBundle.cpp) writes a bundle from these parts, one file each: the module facts
// they all read (ModuleFacts.cpp), weights.sgw (WeightBlob.cpp), model.cpp (ModelSource.cpp,
// with NamedCpp.cpp naming its values), manifest.json (Manifest.cpp), and the fixed files
// CMakeLists.txt (with TargetFlags.cpp's flags), model.h and main.cpp (BundleTemplates.cpp), and
// with --embed-weights the firmware library's files (EmbeddedLibrary.cpp).
//
//===------------------------------------------------------------------------------------===//
#ifndef SAGUARO_CODEGEN_EMIT_BUNDLEPARTS_H
#define SAGUARO_CODEGEN_EMIT_BUNDLEPARTS_H

#include "codegen/emit/EmitBundle.h"

#include "blob_writer.h"

#include "llvm/Support/JSON.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace saguaro::bundle {

inline constexpr const char *kCompilerVersion = "saguaro 0.1.0";

/// An error "FILE: message" for the user.
llvm::Error fileError(llvm::StringRef file, const llvm::Twine &message);

/// The blob's name of a tensor element type: "F32", "F16" or "U8".
const char *dtypeName(DType t);

/// A weight that kern-pack-weights rearranged for the target.
struct PackedWeight {
  std::string layout;
  int64_t bits = 0, k = 0, rows = 0;
};

/// What a kern.tap id carries: the inputs of weights (calibration builds, kern-insert-calibration-taps) or the
/// hidden state after `layer` decoder layers (llm.hidden_tap, the probe's input).
struct Tap {
  std::string kind;
  int64_t cols = 0;
  std::optional<int64_t> layer;
  std::optional<std::vector<std::string>> weights;
};

/// The KV cache of a layer that computes K/V (kern.kv_caches): `positions` slots of kv_heads × head_dim for K and
/// for V; a sliding layer's (window > 0) is a ring of its window when that is shorter than max_seq.
struct KvCache {
  int64_t layer = 0, kvHeads = 0, headDim = 0, window = 0, positions = 0;
};

/// The module attributes the bundle writer reads, parsed once.
struct ModuleFacts {
  std::vector<std::string> slots;             // saguaro.weight_slots: the weight of each slot
  std::map<std::string, PackedWeight> packed; // kern.packed by weight name
  std::set<std::string> gathered;             // kern.gathered: weights only gathers read (the blob's mapped section)
  std::vector<Tap> taps;                      // kern.taps, by id
  int64_t arenaBytes = 0, kvBytes = 0;        // kern.arena_bytes, kern.kv_bytes
  int64_t visionArenaBytes = 0;               // kern.vision_arena_bytes: the vision tower's own arena
  int64_t audioArenaBytes = 0;                // kern.audio_arena_bytes: the audio tower's own arena
  int64_t audioStateBytes = 0;                // kern.audio_state_bytes: a streamed clip's state (its step's rings)
  std::string kvType = "f32";                 // kern.kv_type: the cache's element type (f32 or f16)
  std::vector<KvCache> kvCaches;              // kern.kv_caches, by layer

  /// (layer, tap id) of the module's llm.hidden_tap, or (0, 0) when it has none.
  std::pair<int64_t, int64_t> hiddenTap() const;

  /// The layout a blob tensor is stored in: a packed CQ layout for the codes and norms of a packed CQ weight, a
  /// packed dense layout for a packed dense weight, else "row-major".
  std::string layoutOf(llvm::StringRef name) const;

  static ModuleFacts of(mlir::ModuleOp m);
};

/// Writes weights.sgw to `path`: the slots' tensors (packed ones rearranged) that are read whole, the tokenizer and
/// chat template, then in the mapped section the gathered ones (ModuleFacts::gathered).
/// Returns the file's sizes. A packed weight that does not match its tensors is an error about `bundleDir`.
llvm::Expected<BlobSizes> writeWeights(llvm::StringRef path, llvm::StringRef bundleDir, const ModuleFacts &facts,
                                      const BundleInputs &in);

/// model.cpp: the weight table and ModelSpec, then the EmitC entry points with their values named.
llvm::Expected<std::string> modelSource(mlir::ModuleOp m, const ModuleFacts &facts, const BundleInputs &in);

/// The C++ text of `m` (EmitC), each value by the name its location gives (`NameLoc`), not `v1`, `v2`, ...
llvm::Expected<std::string> translateToNamedCpp(mlir::ModuleOp m);

/// manifest.json for people to read: model, target, tensors and their layouts, memory plan, taps.
llvm::json::Value manifest(mlir::ModuleOp m, const ModuleFacts &facts, const BundleInputs &in, const BlobSizes &blob);

/// CMakeLists.txt that builds the bundle on its own, model.cpp with the target's `flags`; with a vision (audio) tower,
/// the runtime links the bundle's copy of the image (audio) front-end; with `in.embedWeights`, it also builds the firmware
/// library (embeddedLibraryCMake).
std::string cmakeLists(llvm::StringRef flags, const BundleInputs &in);
/// The firmware library's part of CMakeLists.txt: libsaguaro_model.a from model.cpp, the runtime and weights.S.
std::string embeddedLibraryCMake(bool threadPool);
/// The firmware library's own files (EmbeddedLibrary.cpp): weights.S, saguaro_model.h and its source, the size
/// probe and saguaro_model.cmake, by file name.
std::vector<std::pair<std::string, std::string>> embeddedLibraryFiles(bool threadPool);
/// model.h: the model ABI and the kernels.
llvm::StringRef modelHeader();
/// main.cpp: the example program.
llvm::StringRef mainSource();

} // namespace saguaro::bundle

#endif // SAGUARO_CODEGEN_EMIT_BUNDLEPARTS_H
