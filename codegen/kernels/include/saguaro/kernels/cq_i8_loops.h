// The loops the ISA int8 CQ kernels share (x86/avx2/cq_i8.h, arm64/neon/cq_i8.h and the sets built on them),
// written once over a per-ISA micro-kernel `Isa`: activation quantization row by row and group by group, the
// σ tables of a tile, the decode GEMV's tiles of eight weight rows and its tail, the split of the output columns
// over the threads, the fall back to the generic kernel, and the public matmuls. Contracts and numerics:
// generic/cq_i8.h; every ISA kernel equals it bit for bit (isa_cq_i8_test.cpp).
//
// `Isa` provides:
//   kVectorDecode<g, Bits, Layout>       whether its decoder reads these codes (else the generic kernel runs)
//   Lut, lut<Bits>(codebook, &scb)       the codebook in the form its decoder looks codes up in, and s_cb
//   gemv_tile<K, N, Bits, Layout, NB>(x, codes, norms, n0, lut, scb, y)
//                                        decode: y[n0 … n0+NB) of one activation row (ActRow), NB = 8 or 1
//   gemm_range<K, N, Bits, Layout>(rows, xq, codes, norms, n0, n1, lut, scb, y)
//                                        prefill (4 rows or more): output columns [n0, n1) of all rows
//   kQuantLanes, absmax<g>(v), quantize<g>(v, inv, q)
//                                        activation quantization: the largest |v[i]| of a group, and q[i] =
//                                        nearbyint(v[i]·inv) with their sum; g a multiple of kQuantLanes
//   kNormLanes, norms(h, out)            kNormLanes σ of a panel of 8 rows from binary16, cq::half_to_float's values
//                                        (a signalling NaN may arrive quietened: the products it feeds quieten it)
#pragma once

// Only ISA sets with their own int8 CQ kernels include this: the build has them (isa_cq_i8_test.cpp checks them).
#define SAGUARO_KERNELS_HAVE_CQ_I8 1

#include <cstdint>
#include <cstring>

#include "saguaro/kernels/cq_format.h"
#include "saguaro/kernels/fused_products.h"
#include "saguaro/kernels/generic/cq_i8.h"
#include "saguaro/kernels/parallel.h"

/// Defines cq_quantize_act_i8, cq_matmul_i8, cq_matmul2_i8 and cq_matmul3_i8 (generic/cq_i8.h's contracts, the
/// same results) in the enclosing ISA namespace with the micro-kernel `Isa` (cq_i8_loops). One definition, so that
/// every ISA set has the generic signatures.
#define SAGUARO_KERNELS_DEFINE_CQ_I8(Isa)                                                                       \
  template <int K>                                                                                              \
  inline void cq_quantize_act_i8(int32_t rows, const float* xr, void* xq) {                                     \
    cq_i8_loops::quantize_act<Isa, K>(rows, xr, xq);                                                            \
  }                                                                                                             \
  template <int K, int N, int Bits, int Layout>                                                                 \
  inline void cq_matmul_i8(int32_t rows, const void* xq, const void* codes, const void* norms,                  \
                           const void* codebook, float* y, const Parallel* par = nullptr) {                     \
    cq_i8_loops::matmul<Isa, K, N, Bits, Layout>(rows, xq, codes, norms, codebook, y, par);                     \
  }                                                                                                             \
  SAGUARO_KERNELS_DEFINE_FUSED_CQ_PRODUCTS(cq_i8_loops::Fused<Isa>)

namespace saguaro::kernels::cq_i8_loops {

/// One row of quantized activations (cq::act_row_bytes): values, per-group scales and sums.
template <int K>
struct ActRow {
  const int8_t* q;
  const float* scale;
  const int32_t* sum;
  ActRow() = default;
  explicit ActRow(const void* xq, int64_t r) {
    const uint8_t* row = static_cast<const uint8_t*>(xq) + r * cq::act_row_bytes(K);
    q = reinterpret_cast<const int8_t*>(row);
    scale = reinterpret_cast<const float*>(row + cq::padded_k(K));
    sum = reinterpret_cast<const int32_t*>(row + cq::padded_k(K) + 4 * cq::groups(K));
  }
};

/// Bytes from one row's group to the next row's same group inside a panel.
template <int K, int Bits, int Layout>
constexpr int kRowStride = cq::panel_rows(Layout) == 1 ? cq::row_code_bytes(K, Bits) : cq::group_code_bytes(K, Bits);

/// The codes of group j of weight row n0 (the first of a tile in one panel).
template <int K, int N, int Bits, int Layout>
inline const uint8_t* group_codes(const uint8_t* codes, int64_t n0, int j) {
  return codes + cq::group_index(n0, j, N, cq::groups(K), Layout) * cq::group_code_bytes(K, Bits);
}

/// sigT[j·NB + b] = σ of weight row n0 + b, group j (rows n0 … n0+NB−1 lie in one panel of the layout): the
/// ISA's vector conversion where a panel of 8 holds whole vectors of them, else cq::half_to_float one by one.
template <class Isa, int N, int G, int NB, int Layout>
inline void norms_transposed(const uint16_t* norms, int64_t n0, float* sigT) {
  for (int j = 0; j < G; ++j) {
    const uint16_t* h = norms + cq::group_index(n0, j, N, G, Layout);
    if constexpr (NB % Isa::kNormLanes == 0 && cq::panel_rows(Layout) == 8) {
      for (int b = 0; b < NB; b += Isa::kNormLanes) Isa::norms(h + b, sigT + j * NB + b);
    } else {
      for (int b = 0; b < NB; ++b) sigT[j * NB + b] = cq::half_to_float(h[b * (cq::panel_rows(Layout) == 1 ? G : 1)]);
    }
  }
}

/// Decode: y[n] for the rows n of [n0, n1) of one activation row, 0 <= n0 <= n1 <= N, n0 a multiple of 8 (eight
/// at a time, then one at a time).
template <class Isa, int K, int N, int Bits, int Layout>
inline void gemv_rows(const ActRow<K>& x, const uint8_t* c, const uint16_t* nrm, int64_t n0, int64_t n1,
                      const typename Isa::Lut& lut, float scb, float* y) {
  // Rows count in int (N is one): with 64-bit counters GCC's loop analysis warned of pointer overflow in the tail
  // loop (-Waggressive-loop-optimizations) where a test's output has a known size.
  int n = static_cast<int>(n0);
  const int end = static_cast<int>(n1);
  for (; n + 8 <= end; n += 8) Isa::template gemv_tile<K, N, Bits, Layout, 8>(x, c, nrm, n, lut, scb, y);
  for (; n < end; ++n) Isa::template gemv_tile<K, N, Bits, Layout, 1>(x, c, nrm, n, lut, scb, y);
}

/// Prefill's single columns: y[r][n] for the rows n of [n0, n1) of every activation row, one at a time.
template <class Isa, int K, int N, int Bits, int Layout>
inline void gemv_columns(int32_t rows, const void* xq, const uint8_t* c, const uint16_t* nrm, int64_t n0, int64_t n1,
                         const typename Isa::Lut& lut, float scb, float* y) {
  for (int64_t n = n0; n < n1; ++n)
    for (int32_t r = 0; r < rows; ++r)
      Isa::template gemv_tile<K, N, Bits, Layout, 1>(ActRow<K>(xq, r), c, nrm, n, lut, scb, y + int64_t{r} * N);
}

/// y = the integer codebook matmul (generic::cq_matmul_i8's contract and result): Isa's GEMV tiles for fewer than 4
/// rows, else its prefill; each thread takes a range of output columns that starts on a panel (8 rows).
template <class Isa, int K, int N, int Bits, int Layout>
inline void matmul(int32_t rows, const void* xq, const void* codes, const void* norms, const void* codebook, float* y,
                   const Parallel* par) {
  if constexpr (!Isa::template kVectorDecode<cq::group_size(K), Bits, Layout>) {
    generic::cq_matmul_i8<K, N, Bits, Layout>(rows, xq, codes, norms, codebook, y, par);
  } else {
    const uint8_t* c = static_cast<const uint8_t*>(codes);
    const uint16_t* nrm = static_cast<const uint16_t*>(norms);
    float scb;
    const typename Isa::Lut lut = Isa::template lut<Bits>(static_cast<const float*>(codebook), &scb);
    parallel_ranges(par, N, 8, int64_t{rows} * N * K, [&](int64_t n0, int64_t n1) {
      if (rows < 4) {
        for (int32_t r = 0; r < rows; ++r)
          gemv_rows<Isa, K, N, Bits, Layout>(ActRow<K>(xq, r), c, nrm, n0, n1, lut, scb, y + int64_t{r} * N);
        return;
      }
      Isa::template gemm_range<K, N, Bits, Layout>(rows, xq, c, nrm, n0, n1, lut, scb, y);
    });
  }
}

/// The ISA side of the fused products (fused::products) from the micro-kernel `Isa`.
template <class Isa>
struct Fused {
  template <int K, int Bits, int Layout>
  static constexpr bool kGemv = Isa::template kVectorDecode<cq::group_size(K), Bits, Layout>;
  template <int Bits>
  static typename Isa::Lut lut(const void* codebook, float* scb) {
    return Isa::template lut<Bits>(static_cast<const float*>(codebook), scb);
  }
  template <int K, int N, int Bits, int Layout>
  static void matmul(int32_t rows, const void* xq, const void* codes, const void* norms, const void* codebook, float* y,
                     const Parallel* par) {
    cq_i8_loops::matmul<Isa, K, N, Bits, Layout>(rows, xq, codes, norms, codebook, y, par);
  }
  template <int K, int N, int Bits, int Layout>
  static void gemv_rows(const void* xq, int32_t r, const void* codes, const void* norms, int64_t n0, int64_t n1,
                        const typename Isa::Lut& lut, float scb, float* y) {
    cq_i8_loops::gemv_rows<Isa, K, N, Bits, Layout>(ActRow<K>(xq, r), static_cast<const uint8_t*>(codes),
                                                    static_cast<const uint16_t*>(norms), n0, n1, lut, scb, y);
  }
};

/// Quantized activations (contract of generic::cq_quantize_act_i8, same bytes): per group, a = max |v|, q =
/// nearbyint(v·(127/a)) with its sum, scale a/127; group sizes the ISA's vectors do not divide take the generic one.
template <class Isa, int K>
inline void quantize_act(int32_t rows, const float* xr, void* xq) {
  constexpr int g = cq::group_size(K);
  constexpr int G = cq::groups(K);
  constexpr int Kp = cq::padded_k(K);
  if constexpr (g % Isa::kQuantLanes != 0) {
    generic::cq_quantize_act_i8<K>(rows, xr, xq);
  } else {
    for (int32_t r = 0; r < rows; ++r) {
      const float* x = xr + static_cast<int64_t>(r) * Kp;
      uint8_t* row = static_cast<uint8_t*>(xq) + static_cast<int64_t>(r) * cq::act_row_bytes(K);
      for (int j = 0; j < G; ++j) {
        const float a = Isa::template absmax<g>(x + j * g);
        const int32_t s = Isa::template quantize<g>(x + j * g, a > 0.0f ? 127.0f / a : 0.0f,
                                                    reinterpret_cast<int8_t*>(row + j * g));
        const float scale = a / 127.0f;
        std::memcpy(row + Kp + 4 * j, &scale, 4);
        std::memcpy(row + Kp + 4 * G + 4 * j, &s, 4);
      }
    }
  }
}

}  // namespace saguaro::kernels::cq_i8_loops
