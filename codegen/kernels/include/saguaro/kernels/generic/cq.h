// Codebook-quantized (CQ) kernels (generic): activation rotation, codebook matmul/logits, embedding decode.
// Format: docs/quantization.md; primitives: saguaro/kernels/cq_format.h.
#pragma once

#include <cstdint>

#include "saguaro/kernels/cq_format.h"
#include "saguaro/kernels/generic/rows.h"
#include "saguaro/kernels/parallel.h"

/// Defines cq_logits_f32<K, N, Bits>(rows, all, xr, codes, norms, codebook, y), the CQ output projection (all rows
/// of xr when `all`, else only the last row into y[0..N)), in the enclosing namespace over its cq_matmul_f32: one
/// definition for every kernel set.
#define SAGUARO_KERNELS_DEFINE_CQ_LOGITS()                                                                           \
  template <int K, int N, int Bits>                                                                                  \
  inline void cq_logits_f32(int32_t rows, bool all, const float* xr, const void* codes, const void* norms,           \
                            const void* codebook, float* y) {                                                        \
    if (all) {                                                                                                       \
      cq_matmul_f32<K, N, Bits>(rows, xr, codes, norms, codebook, y);                                                \
    } else {                                                                                                         \
      cq_matmul_f32<K, N, Bits>(1, xr + static_cast<int64_t>(rows - 1) * cq::padded_k(K), codes, norms, codebook,    \
                                y);                                                                                  \
    }                                                                                                                \
  }

namespace saguaro::kernels::generic {

namespace cq_detail {

/// Decodes `g` codes (a whole group, g a multiple of 8) of width Bits into codebook values.
/// Each run of 8 codes occupies exactly Bits bytes, read as one little-endian word.
template <int Bits>
inline void decode_group(const uint8_t* codes, int g, const float* cb, float* out) {
  static_assert(Bits >= 1 && Bits <= 4, "CQ codes are 1..4 bits");
  constexpr uint32_t kMask = (1u << Bits) - 1u;
  for (int i = 0; i < g; i += 8, codes += Bits) {
    uint32_t word = 0;
    for (int b = 0; b < Bits; ++b) word |= static_cast<uint32_t>(codes[b]) << (8 * b);
    for (int k = 0; k < 8; ++k) out[i + k] = cb[(word >> (k * Bits)) & kMask];
  }
}

/// Work of the rotation per element, in the units of parallel_ranges (about log2(g) butterfly steps plus the
/// signed gather and the scaling): whether for_each_rotation_row splits the rows over threads.
constexpr int64_t kRotateWorkPerElement = 8;

/// Calls row(x[r], xr[r]) for every row r of cq_rotate_f32 (rows of K and of padded_k(K) floats), splitting the
/// rows over the threads of `par` (prefill; a single row stays on the calling thread). Rows are independent.
template <int K, class F>
inline void for_each_rotation_row(const Parallel* par, int32_t rows, const float* x, float* xr, F&& row) {
  constexpr int Kp = cq::padded_k(K);
  parallel_ranges(par, rows, 1, int64_t{rows} * Kp * kRotateWorkPerElement, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) row(x + r * K, xr + r * Kp);
  });
}

}  // namespace cq_detail

/// xr[r] = per group j of the zero-padded row x[r] (K floats): R_g x_j, g = group_size(K);
/// xr holds rows × padded_k(K) floats and must not alias x.
template <int K>
inline void cq_rotate_f32(int32_t rows, const float* x, float* xr, const Parallel* par = nullptr) {
  constexpr int g = cq::group_size(K);
  constexpr int G = cq::groups(K);
  constexpr const cq::RotationTable<g>& rot = cq::kRotationTable<g>;
  cq_detail::for_each_rotation_row<K>(par, rows, x, xr, [&](const float* src, float* dst) {
    for (int j = 0; j < G; ++j) {
      const int k0 = j * g;
      if (k0 + g <= K) {
        cq::rotate(src + k0, dst + k0, g, rot.perm, rot.sign);
      } else {
        float buf[g];
        for (int i = 0; i < g; ++i) buf[i] = k0 + i < K ? src[k0 + i] : 0.0f;
        cq::rotate(buf, dst + k0, g, rot.perm, rot.sign);
      }
    }
  });
}

/// y[r][n] = Σ_j half(norms[n][j]) · Σ_i codebook[code(n,j,i)] · xr[r][j·g+i] for rotated xr [rows][padded_k(K)];
/// codes U8 [N][G·g·Bits/8], norms F16 [N][G], codebook F32 [2^Bits]. Each weight row is decoded once (stack
/// buffer of padded_k(K) floats) and then applied to all rows, four at a time; every output sums its group dot
/// products in i order and its groups in j order, so results do not depend on `rows`.
template <int K, int N, int Bits>
inline void cq_matmul_f32(int32_t rows, const float* xr, const void* codes, const void* norms, const void* codebook,
                          float* y) {
  constexpr int g = cq::group_size(K);
  constexpr int G = cq::groups(K);
  constexpr int Kp = cq::padded_k(K);
  constexpr int kRowBytes = cq::row_code_bytes(K, Bits);
  constexpr int kGroupBytes = cq::group_code_bytes(K, Bits);
  const uint8_t* c = static_cast<const uint8_t*>(codes);
  const uint16_t* nrm = static_cast<const uint16_t*>(norms);
  const float* cb = static_cast<const float*>(codebook);
  float w[Kp];
  float sig[G];
  for (int n = 0; n < N; ++n) {
    const uint8_t* cn = c + static_cast<int64_t>(n) * kRowBytes;
    for (int j = 0; j < G; ++j) {
      cq_detail::decode_group<Bits>(cn + j * kGroupBytes, g, cb, w + j * g);
      sig[j] = cq::half_to_float(nrm[static_cast<int64_t>(n) * G + j]);
    }
    rows_by_four<N>(rows, xr, Kp, n, y, [&](auto kR, const float* const* xs, float* a) {
      constexpr int R = decltype(kR)::value;
      for (int j = 0; j < G; ++j) {
        const float* wj = w + j * g;
        const int k0 = j * g;
        float d[R];
        #pragma GCC unroll 4
        for (int q = 0; q < R; ++q) d[q] = 0.0f;
        for (int i = 0; i < g; ++i) {
          #pragma GCC unroll 4
          for (int q = 0; q < R; ++q) d[q] += wj[i] * xs[q][k0 + i];
        }
        #pragma GCC unroll 4
        for (int q = 0; q < R; ++q) a[q] += sig[j] * d[q];
      }
    });
  }
}

// cq_logits_f32 over this namespace's cq_matmul_f32.
SAGUARO_KERNELS_DEFINE_CQ_LOGITS()

/// out[r] = decoded row tok[r] of a CQ table [V][D] times `scale`: per group ŵ_j = σ_j · R_gᵀ c[code_j],
/// first D elements; codes U8 [V][G·g·Bits/8], norms F16 [V][G], codebook F32 [2^Bits].
/// `Layout` is the table's cq::CodeLayout and V its row count (needed by panel layouts).
template <int D, int Bits, int Layout = cq::kLayoutLsb, int V = 0>
inline void cq_embed_f32(int32_t rows, const int32_t* tok, const void* codes, const void* norms, const void* codebook,
                         float scale, float* out) {
  constexpr int g = cq::group_size(D);
  constexpr int G = cq::groups(D);
  constexpr int kGroupBytes = cq::group_code_bytes(D, Bits);
  constexpr const cq::RotationTable<g>& rot = cq::kRotationTable<g>;
  static_assert(cq::panel_rows(Layout) == 1 || V > 0, "panel layouts need the table's row count");
  const uint8_t* c = static_cast<const uint8_t*>(codes);
  const uint16_t* nrm = static_cast<const uint16_t*>(norms);
  const float* cb = static_cast<const float*>(codebook);
  float u[g];
  float w[g];
  for (int32_t r = 0; r < rows; ++r) {
    const int64_t t = tok[r];
    float* dst = out + static_cast<int64_t>(r) * D;
    for (int j = 0; j < G; ++j) {
      const int64_t at = cq::group_index(t, j, V, G, Layout);
      if constexpr (Layout == cq::kLayoutLsb) {
        cq_detail::decode_group<Bits>(c + at * kGroupBytes, g, cb, u);
      } else {
        for (int i = 0; i < g; ++i) u[i] = cb[cq::read_code_in(c + at * kGroupBytes, i, g, Bits, Layout)];
      }
      cq::unrotate(u, w, g, rot.perm, rot.sign);
      const float sigma = cq::half_to_float(nrm[at]);
      const int k0 = j * g;
      const int len = k0 + g <= D ? g : D - k0;
      for (int i = 0; i < len; ++i) dst[k0 + i] = (sigma * w[i]) * scale;
    }
  }
}

}  // namespace saguaro::kernels::generic
