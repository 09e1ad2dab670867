// Stored layouts of dense (float32 or binary16) weights W [N][K] (docs/internals.md, "Packed layouts"): the kernels'
// `Layout` template argument, the element offsets they read, and the permutation the bundle writer applies.
//
// Row-major is the imported order. Panels of three rows (`dense-panel3`, chosen by kern-pack-weights for x86
// targets when K is a multiple of 8) hold, for rows 3p, 3p+1, 3p+2, the first 8 elements of each row, then the
// next 8 of each, and so on ([K/8][3][8]); a panel occupies exactly the bytes its three rows occupy row-major, and
// the last N % 3 rows stay row-major after the panels. A decode tile reads its three rows side by side, which in
// this layout is one sequential stream (three interleaved row streams are what the hardware prefetchers follow
// poorly). The stored bytes are a permutation of the imported ones: same size, same values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace saguaro::kernels::dense {

/// Values of the kernels' Layout template argument.
enum Layout : int {
  kRowMajor = 0,
  kPanel3 = 1,
};

/// Rows per panel and elements per row per panel step.
constexpr int kPanelRows = 3;
constexpr int kPanelChunk = 8;

/// Whether a weight of K columns can be stored in panels.
constexpr bool panel_fits(int64_t k) { return k > 0 && k % kPanelChunk == 0; }

/// The offset of element (n, k) of a [N][K] weight stored in `layout`.
constexpr int64_t offset(int layout, int64_t N, int64_t K, int64_t n, int64_t k) {
  if (layout == kRowMajor || n >= N / kPanelRows * kPanelRows) return n * K + k;
  return (n - n % kPanelRows) * K + (k / kPanelChunk) * (kPanelRows * kPanelChunk) + (n % kPanelRows) * kPanelChunk +
         k % kPanelChunk;
}

/// Copies the row-major [N][K] elements of `element_bytes` bytes at `src` into `dst` in `layout`.
inline void pack(int layout, int64_t N, int64_t K, size_t element_bytes, const void* src, void* dst) {
  const auto* s = static_cast<const unsigned char*>(src);
  auto* d = static_cast<unsigned char*>(dst);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; k += kPanelChunk) {  // runs of 8 elements are contiguous in every layout
      const int64_t run = K - k < kPanelChunk ? K - k : kPanelChunk;
      std::memcpy(d + offset(layout, N, K, n, k) * element_bytes, s + (n * K + k) * element_bytes,
                  static_cast<size_t>(run) * element_bytes);
    }
}

}  // namespace saguaro::kernels::dense
