// Fused CQ products (cq_matmul2_i8, cq_matmul3_i8 of an ISA set): several weights applied to one quantized
// activation in one parallel region. The products' rows are laid end to end in one fused row space, each product
// starting on a multiple of 8 (a panel), and parallel_ranges splits that space; each ISA set supplies only its
// whole-product matmul and the GEMV over a row range of one product (the `Isa` of products()). Contracts:
// generic/cq_i8.h.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "saguaro/kernels/parallel.h"

/// Defines cq_matmul2_i8 and cq_matmul3_i8 (generic/cq_i8.h's contracts, the same results) in the enclosing ISA
/// namespace over fused::matmul2 / fused::matmul3 with the kernels of `Isa`: every product's rows in one parallel
/// region. One definition, so that every ISA set has the same signatures.
#define SAGUARO_KERNELS_DEFINE_FUSED_CQ_PRODUCTS(Isa)                                                                \
  template <int K, int N0, int N1, int Bits, int Layout>                                                             \
  inline void cq_matmul2_i8(int32_t rows, const void* xq, const void* codebook, const void* codes0,                  \
                            const void* norms0, float* y0, const void* codes1, const void* norms1, float* y1,        \
                            const Parallel* par = nullptr) {                                                         \
    fused::matmul2<Isa, K, N0, N1, Bits, Layout>(rows, xq, codebook, codes0, norms0, y0, codes1, norms1, y1, par);  \
  }                                                                                                                  \
  template <int K, int N0, int N1, int N2, int Bits, int Layout>                                                     \
  inline void cq_matmul3_i8(int32_t rows, const void* xq, const void* codebook, const void* codes0,                  \
                            const void* norms0, float* y0, const void* codes1, const void* norms1, float* y1,        \
                            const void* codes2, const void* norms2, float* y2, const Parallel* par = nullptr) {      \
    fused::matmul3<Isa, K, N0, N1, N2, Bits, Layout>(rows, xq, codebook, codes0, norms0, y0, codes1, norms1, y1,    \
                                                     codes2, norms2, y2, par);                                       \
  }

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

/// y_i = the integer codebook matmul of xq with product i (generic::cq_matmul_i8's result for each) with the
/// kernels of an ISA set, which `Isa` supplies:
///   Isa::kGemv<K, Bits, Layout>                  whether its GEMV decodes these codes (else: Isa::matmul for all)
///   Isa::matmul<K, N, Bits, Layout>(rows, xq, codes, norms, codebook, y, par)     one whole product
///   Isa::lut<Bits>(codebook, &scb)               the codebook in the form its GEMV takes
///   Isa::gemv_rows<K, N, Bits, Layout>(xq, r, codes, norms, n0, n1, lut, scb, y)  rows [n0, n1) of activation row r
/// Decode (fewer than 4 rows) splits the rows of all products over the threads in one parallel region — one
/// wake-up and one wait instead of one per product, and long streams instead of short ones; prefill runs the
/// products one after another (each already long enough to split well).
template <class Isa, int K, int Bits, int Layout, int... Ns, size_t... I>
inline void products(int32_t rows, const void* xq, const void* codebook, const Product (&p)[sizeof...(Ns)],
                     const Parallel* par, std::index_sequence<I...>) {
  const auto separately = [&] {
    (Isa::template matmul<K, Ns, Bits, Layout>(rows, xq, p[I].codes, p[I].norms, codebook, p[I].y, par), ...);
  };
  if constexpr (!Isa::template kGemv<K, Bits, Layout>) {
    separately();
  } else {
    if (rows >= 4) return separately();
    constexpr int kN[] = {Ns...};
    float scb;
    const auto lut = Isa::template lut<Bits>(codebook, &scb);
    parallel_products<Ns...>(par, int64_t{rows} * K, [&](auto i, int64_t n0, int64_t n1) {
      constexpr int N = kN[decltype(i)::value];
      const Product& q = p[decltype(i)::value];
      for (int32_t r = 0; r < rows; ++r)
        Isa::template gemv_rows<K, N, Bits, Layout>(xq, r, q.codes, q.norms, n0, n1, lut, scb, q.y + int64_t{r} * N);
    });
  }
}

/// cq_matmul2_i8 (generic/cq_i8.h's contract) with the kernels of `Isa` (products()).
template <class Isa, int K, int N0, int N1, int Bits, int Layout>
inline void matmul2(int32_t rows, const void* xq, const void* codebook, const void* codes0, const void* norms0,
                    float* y0, const void* codes1, const void* norms1, float* y1, const Parallel* par) {
  const Product p[] = {{codes0, norms0, y0}, {codes1, norms1, y1}};
  products<Isa, K, Bits, Layout, N0, N1>(rows, xq, codebook, p, par, std::make_index_sequence<2>());
}

/// cq_matmul3_i8 (generic/cq_i8.h's contract) with the kernels of `Isa` (products()).
template <class Isa, int K, int N0, int N1, int N2, int Bits, int Layout>
inline void matmul3(int32_t rows, const void* xq, const void* codebook, const void* codes0, const void* norms0,
                    float* y0, const void* codes1, const void* norms1, float* y1, const void* codes2,
                    const void* norms2, float* y2, const Parallel* par) {
  const Product p[] = {{codes0, norms0, y0}, {codes1, norms1, y1}, {codes2, norms2, y2}};
  products<Isa, K, Bits, Layout, N0, N1, N2>(rows, xq, codebook, p, par, std::make_index_sequence<3>());
}

}  // namespace saguaro::kernels::fused
