// Token embedding lookup (generic), from a float32 or binary16 table.
#pragma once

#include <cstdint>

#include "saguaro/kernels/dense_layout.h"
#include "saguaro/kernels/generic/element.h"

namespace saguaro::kernels::generic {

namespace embed_detail {

/// out[r] = table[tok[r]] * scale for r < rows; table [Vocab][D] of element type T (element.h) stored in `Layout`
/// (dense_layout.h; Vocab matters only to a packed layout).
template <int D, int Layout, int Vocab, class T>
inline void embed(int32_t rows, const int32_t* tok, const T* table, float scale, float* out) {
  static_assert(Layout == dense::kRowMajor || Vocab > 0, "a packed table needs its row count");
  for (int32_t r = 0; r < rows; ++r) {
    float* dst = out + static_cast<int64_t>(r) * D;
    // x * 1.0f is exact, so scale 1 is a plain copy (of the converted halves) without a branch.
    for (int i = 0; i < D; ++i) dst[i] = load_float(table + dense::offset(Layout, Vocab, D, tok[r], i)) * scale;
  }
}

}  // namespace embed_detail

/// out[r] = table[tok[r]] * scale for r < rows; table is float32 [Vocab][D] stored in `Layout`.
template <int D, int Layout = dense::kRowMajor, int Vocab = 0>
inline void embed_f32(int32_t rows, const int32_t* tok, const void* table, float scale, float* out) {
  embed_detail::embed<D, Layout, Vocab>(rows, tok, static_cast<const float*>(table), scale, out);
}

/// out[r] = table[tok[r]] * scale for r < rows; table is IEEE binary16 bits uint16 [Vocab][D] stored in `Layout`,
/// read exactly.
template <int D, int Layout = dense::kRowMajor, int Vocab = 0>
inline void embed_f16(int32_t rows, const int32_t* tok, const void* table, float scale, float* out) {
  embed_detail::embed<D, Layout, Vocab>(rows, tok, static_cast<const uint16_t*>(table), scale, out);
}

}  // namespace saguaro::kernels::generic
