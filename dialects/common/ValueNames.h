//===- ValueNames.h - what a value holds, carried in its location ----------------------===//
//
// The graph builder names every value after what it holds and the block it belongs to, as a
// location: `loc("x_l3_q"("layer 3: attention"))`, a NameLoc naming the value around a NameLoc
// naming the block. Passes keep locations (a fused op gets a FusedLoc of its parts; the last
// named part counts), so kern.alloc and kern.call arrive at kern-lower-to-emitc with them, and
// model.cpp names its buffers and marks where each block starts. Locations never change what is
// computed: a value without a name is only harder to read.
//
//===------------------------------------------------------------------------------------===//
#ifndef SAGUARO_DIALECTS_COMMON_VALUENAMES_H
#define SAGUARO_DIALECTS_COMMON_VALUENAMES_H

#include "mlir/IR/Location.h"
#include "llvm/ADT/STLExtras.h"

namespace saguaro::names {

/// `value` in `block`: loc("value"("block")); without a block, loc("value").
inline mlir::Location at(mlir::MLIRContext *ctx, const llvm::Twine &value, llvm::StringRef block) {
  mlir::Location inner = block.empty() ? mlir::Location(mlir::UnknownLoc::get(ctx))
                                       : mlir::Location(mlir::NameLoc::get(mlir::StringAttr::get(ctx, block)));
  return mlir::NameLoc::get(mlir::StringAttr::get(ctx, value), inner);
}

/// The named parts of `loc`, the one that counts first: `loc` itself, or the NameLocs of a FusedLoc from last to first.
inline llvm::SmallVector<mlir::NameLoc> namedParts(mlir::Location loc) {
  llvm::SmallVector<mlir::NameLoc> parts;
  if (auto fused = mlir::dyn_cast<mlir::FusedLoc>(loc)) {
    for (mlir::Location part : llvm::reverse(fused.getLocations()))
      if (auto named = mlir::dyn_cast<mlir::NameLoc>(part))
        parts.push_back(named);
  } else if (auto named = mlir::dyn_cast<mlir::NameLoc>(loc)) {
    parts.push_back(named);
  }
  return parts;
}

/// The value `loc` names, or "".
inline llvm::StringRef valueOf(mlir::Location loc) {
  llvm::SmallVector<mlir::NameLoc> parts = namedParts(loc);
  return parts.empty() ? llvm::StringRef() : parts.front().getName().getValue();
}

/// The block `loc` names (e.g. "layer 3: mlp"), or "".
inline llvm::StringRef blockOf(mlir::Location loc) {
  llvm::SmallVector<mlir::NameLoc> parts = namedParts(loc);
  if (parts.empty())
    return {};
  auto block = mlir::dyn_cast<mlir::NameLoc>(parts.front().getChildLoc());
  return block ? block.getName().getValue() : llvm::StringRef();
}

/// Another value of the same place: `<value>_<role>` in the block of `loc` (`loc` itself when it names nothing).
inline mlir::Location derived(mlir::Location loc, llvm::StringRef role) {
  llvm::StringRef value = valueOf(loc);
  return value.empty() ? loc : at(loc.getContext(), value + "_" + role, blockOf(loc));
}

/// `value` in the block of `loc`.
inline mlir::Location renamed(mlir::Location loc, const llvm::Twine &value) {
  return at(loc.getContext(), value, blockOf(loc));
}

} // namespace saguaro::names

#endif // SAGUARO_DIALECTS_COMMON_VALUENAMES_H
