// The stored layouts of weight tensors, declared once: the name the IR (`#kern.layout<"…">`), manifest.json and the
// blob use, the value of the kernels' `Layout` template argument, and the constant generated code spells it with.
// kern-pack-weights picks them (docs/internals.md, "Packed layouts"), the bundle writer rearranges the bytes, the
// runtime checks that a blob stores what the model expects.
#pragma once

#include "saguaro/kernels/cq_format.h"
#include "saguaro/kernels/dense_layout.h"

#include <cstring>

namespace saguaro::kernels {

/// Which packer rearranges a layout's bytes: dense::pack (float32 / binary16 matrices) or cq::pack_tensor (CQ codes
/// and norms).
enum class LayoutKind { dense, cq };

struct StoredLayout {
  const char* name;      // IR, manifest.json and blob spelling
  LayoutKind kind;
  int value;             // the kernels' Layout template argument
  const char* constant;  // how generated code names `value`
};

/// The layout of a tensor stored as imported (every tensor nothing packs).
inline constexpr const char* kUnpackedLayout = "row-major";

inline constexpr StoredLayout kLayouts[] = {
    {kUnpackedLayout, LayoutKind::dense, dense::kRowMajor, "saguaro::kernels::dense::kRowMajor"},
    {"dense-panel3", LayoutKind::dense, dense::kPanel3, "saguaro::kernels::dense::kPanel3"},
    {"cq-lsb", LayoutKind::cq, cq::kLayoutLsb, "saguaro::kernels::cq::kLayoutLsb"},
    {"cq-planar-panel8", LayoutKind::cq, cq::kLayoutPlanarPanel8, "saguaro::kernels::cq::kLayoutPlanarPanel8"},
};

/// The layout called `name`, or null.
inline const StoredLayout* find_layout(const char* name) {
  for (const StoredLayout& l : kLayouts)
    if (std::strcmp(l.name, name) == 0) return &l;
  return nullptr;
}

}  // namespace saguaro::kernels
