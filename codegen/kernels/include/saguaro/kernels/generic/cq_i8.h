// Codebook-quantized (CQ) kernels on int8 activations (generic): activation quantization and the integer
// codebook matmul (kernels.h builds cq_logits_i8 on it). Definition: docs/quantization.md, "Integer kernels".
//
// Activations: per row and group j of the rotated row (padded_k(K) floats), a = max |x_i|,
// q_i = round(x_i · (127 / a)) (ties to even), scale_j = a / 127, sum_j = Σ q_i (all zero when a = 0).
// Weights: the codebook as integers in [-64, 64] (cq::int8_codebook: cb ≈ qcb · s_cb).
// Output: y = Σ_j σ_j · t_j in j order with t_j = (scale_j · s_cb) · float(dot_j), dot_j = Σ_i qcb[code_i] · q_i
// (exact in int32), each product and sum rounded separately (no FMA), so ISA kernels can equal it bit for bit.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "saguaro/kernels/cq_format.h"
#include "saguaro/kernels/parallel.h"

namespace saguaro::kernels::generic {

/// xq[r] = the quantized activations of row r of xr ([rows][padded_k(K)] rotated floats), cq::act_row_bytes(K)
/// bytes per row: padded_k(K) int8 values, groups(K) float scales, groups(K) int32 sums.
template <int K>
inline void cq_quantize_act_i8(int32_t rows, const float* xr, void* xq) {
  constexpr int g = cq::group_size(K);
  constexpr int G = cq::groups(K);
  constexpr int Kp = cq::padded_k(K);
  for (int32_t r = 0; r < rows; ++r) {
    const float* x = xr + static_cast<int64_t>(r) * Kp;
    uint8_t* row = static_cast<uint8_t*>(xq) + static_cast<int64_t>(r) * cq::act_row_bytes(K);
    int8_t* q = reinterpret_cast<int8_t*>(row);
    for (int j = 0; j < G; ++j) {
      float a = 0.0f;
      for (int i = 0; i < g; ++i) a = std::fabs(x[j * g + i]) > a ? std::fabs(x[j * g + i]) : a;
      const float inv = a > 0.0f ? 127.0f / a : 0.0f;
      int32_t sum = 0;
      for (int i = 0; i < g; ++i) {
        q[j * g + i] = static_cast<int8_t>(std::nearbyint(x[j * g + i] * inv));
        sum += q[j * g + i];
      }
      const float scale = a / 127.0f;
      std::memcpy(row + Kp + 4 * j, &scale, 4);
      std::memcpy(row + Kp + 4 * G + 4 * j, &sum, 4);
    }
  }
}

/// y[r][n] = Σ_j σ[n][j] · ((scale[r][j] · s_cb) · Σ_i qcb[code(n,j,i)] · q[r][j·g+i]) for quantized activations xq
/// (cq_quantize_act_i8); codes U8 [N][G·g·Bits/8] and norms F16 [N][G] in `Layout` (cq::CodeLayout), codebook F32
/// [2^Bits]. Output columns are split over `par`'s threads (parallel.h) in ranges of 8.
template <int K, int N, int Bits, int Layout>
inline void cq_matmul_i8(int32_t rows, const void* xq, const void* codes, const void* norms, const void* codebook,
                         float* y, const Parallel* par = nullptr) {
  constexpr int g = cq::group_size(K);
  constexpr int G = cq::groups(K);
  constexpr int Kp = cq::padded_k(K);
  constexpr int kGroupBytes = cq::group_code_bytes(K, Bits);
  const uint8_t* c = static_cast<const uint8_t*>(codes);
  const uint16_t* nrm = static_cast<const uint16_t*>(norms);
  int8_t qcb[16];
  float scb;
  cq::int8_codebook(static_cast<const float*>(codebook), Bits, qcb, &scb);
  parallel_ranges(par, N, 8, int64_t{rows} * N * K, [&](int64_t n0, int64_t n1) {
  int8_t w[Kp];
  float sig[G];
  for (int64_t n = n0; n < n1; ++n) {
    for (int j = 0; j < G; ++j) {
      const int64_t at = cq::group_index(n, j, N, G, Layout);
      for (int i = 0; i < g; ++i) w[j * g + i] = qcb[cq::read_code_in(c + at * kGroupBytes, i, g, Bits, Layout)];
      sig[j] = cq::half_to_float(nrm[at]);
    }
    for (int32_t r = 0; r < rows; ++r) {
      const uint8_t* row = static_cast<const uint8_t*>(xq) + static_cast<int64_t>(r) * cq::act_row_bytes(K);
      const int8_t* q = reinterpret_cast<const int8_t*>(row);
      float acc = 0.0f;
      for (int j = 0; j < G; ++j) {
        int32_t dot = 0;
        for (int i = 0; i < g; ++i) dot += w[j * g + i] * q[j * g + i];
        float scale;
        std::memcpy(&scale, row + Kp + 4 * j, 4);
        const float t = (scale * scb) * static_cast<float>(dot);
        acc = acc + sig[j] * t;
      }
      y[static_cast<int64_t>(r) * N + n] = acc;
    }
  }
  });
}

/// Two products of one quantized activation: y0 = cq_matmul_i8<K, N0, …>(xq, codes0, norms0), y1 likewise (the
/// outputs must not overlap). kern-fuse-cq-products emits it for consecutive products of one activation; an ISA
/// version computes all rows in one parallel region, with the same results.
template <int K, int N0, int N1, int Bits, int Layout>
inline void cq_matmul2_i8(int32_t rows, const void* xq, const void* codebook, const void* codes0, const void* norms0,
                          float* y0, const void* codes1, const void* norms1, float* y1, const Parallel* par = nullptr) {
  cq_matmul_i8<K, N0, Bits, Layout>(rows, xq, codes0, norms0, codebook, y0, par);
  cq_matmul_i8<K, N1, Bits, Layout>(rows, xq, codes1, norms1, codebook, y1, par);
}

/// Three products of one quantized activation (as cq_matmul2_i8).
template <int K, int N0, int N1, int N2, int Bits, int Layout>
inline void cq_matmul3_i8(int32_t rows, const void* xq, const void* codebook, const void* codes0, const void* norms0,
                          float* y0, const void* codes1, const void* norms1, float* y1, const void* codes2,
                          const void* norms2, float* y2, const Parallel* par = nullptr) {
  cq_matmul2_i8<K, N0, N1, Bits, Layout>(rows, xq, codebook, codes0, norms0, y0, codes1, norms1, y1, par);
  cq_matmul_i8<K, N2, Bits, Layout>(rows, xq, codes2, norms2, codebook, y2, par);
}

}  // namespace saguaro::kernels::generic
