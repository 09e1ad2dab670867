// Fused CQ products (cq_matmul2_i8, cq_matmul3_i8 of an ISA set): several weights applied to one quantized
// activation in one parallel region. The products' rows are laid end to end in one fused row space, each product
// starting on a multiple of 8 (a panel), and parallel_ranges splits that space; each ISA supplies only the GEMV over
// a row range of one product. Contracts: generic/cq_i8.h.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "saguaro/kernels/parallel.h"

namespace saguaro::kernels::fused {

/// One product of a fused call: an N-row weight's codes and norms and its output.
struct Product {
  const void* codes;
  const void* norms;
  float* y;
};

/// Where product i's rows start in the fused row space: each product begins on a multiple of 8 (a panel).
template <int... Ns>
constexpr std::array<int64_t, sizeof...(Ns) + 1> product_offsets() {
  std::array<int64_t, sizeof...(Ns) + 1> off{};
  const int n[] = {Ns...};
  for (size_t i = 0; i < sizeof...(Ns); ++i) off[i + 1] = off[i] + (n[i] + 7) / 8 * 8;
  return off;
}

namespace detail {

/// rows_of(I, b, e) for every product I whose rows [off[I], off[I] + n[I]) meet the chunk [n0, n1).
template <class F, size_t... I>
inline void rows_in_chunk(const int64_t* off, const int64_t* n, int64_t n0, int64_t n1, F& rows_of,
                          std::index_sequence<I...>) {
  const auto one = [&](auto i) {
    const int64_t b = n0 > off[i] ? n0 - off[i] : 0;
    const int64_t e = n1 - off[i] < n[i] ? n1 - off[i] : n[i];
    if (b < e) rows_of(i, b, e);
  };
  (one(std::integral_constant<size_t, I>{}), ...);
}

}  // namespace detail

/// Splits the fused row space of products with Ns rows over the threads of `par` (`work_per_row` per row, as
/// parallel_ranges counts it) and calls rows_of(std::integral_constant<size_t, I>{}, b, e) for the rows [b, e) of
/// product I (0 <= b < e <= Ns[I], b a multiple of 8) that each chunk holds.
template <int... Ns, class F>
inline void parallel_products(const Parallel* par, int64_t work_per_row, F&& rows_of) {
  static constexpr auto off = product_offsets<Ns...>();
  static constexpr int64_t n[] = {Ns...};
  constexpr int64_t total = off[sizeof...(Ns)];
  parallel_ranges(par, total, 8, work_per_row * total, [&](int64_t n0, int64_t n1) {
    detail::rows_in_chunk(off.data(), n, n0, n1, rows_of, std::make_index_sequence<sizeof...(Ns)>());
  });
}

}  // namespace saguaro::kernels::fused
