// The confidence probe's head (llm.probe_head): p(the answer is wrong) from the hidden-tap rows of its tokens.
// The same float operations in the same order as the trainer's reference computation (probe/probe_head.cpp,
// docs/probe.md "Reference computation"), so the compiled probe reproduces the trained one. One version for every
// target: it runs once per answer over a few dozen rows, far below one decode step.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace saguaro::kernels::generic {

namespace detail {
/// out[o] = max(Σ_i w[o][i]·in[i] + b[o], 0), summed left to right.
template <int In, int Out>
inline void probe_linear_relu(const float* w, const float* b, const float* in, float* out) {
  for (int o = 0; o < Out; ++o) {
    float acc = 0.0f;
    for (int i = 0; i < In; ++i) acc += w[static_cast<int64_t>(o) * In + i] * in[i];
    out[o] = std::max(acc + b[o], 0.0f);
  }
}
}  // namespace detail

/// x: rows × D hidden rows (rows ≥ 1); z: rows × H scratch; score: rows scratch; *p_wrong: the result.
/// Weights (float32): gamma, beta [D]; w0 [H][D], b0 [H]; query [H]; w1 [M1][H], b1 [M1]; w2 [M2][M1], b2 [M2];
/// w3 [M2], b3 [1].
template <int D, int H, int M1, int M2>
inline void probe_head_f32(int32_t rows, const float* x, const void* gamma_, const void* beta_, const void* w0_,
                           const void* b0_, const void* query_, const void* w1_, const void* b1_, const void* w2_,
                           const void* b2_, const void* w3_, const void* b3_, float* z, float* score,
                           float* p_wrong) {
  const auto* gamma = static_cast<const float*>(gamma_);
  const auto* beta = static_cast<const float*>(beta_);
  const auto* query = static_cast<const float*>(query_);
  const auto* w3 = static_cast<const float*>(w3_);
  const float score_scale = 1.0f / std::sqrt(static_cast<float>(H));
  float y[D];
  for (int32_t t = 0; t < rows; ++t) {
    // LayerNorm with the biased variance, eps 1e-5.
    const float* xt = x + static_cast<int64_t>(t) * D;
    float mean = 0.0f;
    for (int i = 0; i < D; ++i) mean += xt[i];
    mean /= static_cast<float>(D);
    float var = 0.0f;
    for (int i = 0; i < D; ++i) var += (xt[i] - mean) * (xt[i] - mean);
    var /= static_cast<float>(D);
    const float inv = 1.0f / std::sqrt(var + 1e-5f);
    for (int i = 0; i < D; ++i) y[i] = (xt[i] - mean) * inv * gamma[i] + beta[i];
    float* zt = z + static_cast<int64_t>(t) * H;
    detail::probe_linear_relu<D, H>(static_cast<const float*>(w0_), static_cast<const float*>(b0_), y, zt);
    float dot = 0.0f;
    for (int o = 0; o < H; ++o) dot += query[o] * zt[o];
    score[t] = dot * score_scale;
  }
  // Softmax over the tokens (max-subtracted) and the attention-weighted sum of z.
  const float max_score = *std::max_element(score, score + rows);
  float sum = 0.0f;
  for (int32_t t = 0; t < rows; ++t) sum += (score[t] = std::exp(score[t] - max_score));
  float pooled[H] = {};
  for (int32_t t = 0; t < rows; ++t) {
    const float a = score[t] / sum;
    for (int o = 0; o < H; ++o) pooled[o] += a * z[static_cast<int64_t>(t) * H + o];
  }
  float u1[M1], u2[M2];
  detail::probe_linear_relu<H, M1>(static_cast<const float*>(w1_), static_cast<const float*>(b1_), pooled, u1);
  detail::probe_linear_relu<M1, M2>(static_cast<const float*>(w2_), static_cast<const float*>(b2_), u1, u2);
  float logit = 0.0f;
  for (int i = 0; i < M2; ++i) logit += w3[i] * u2[i];
  logit += static_cast<const float*>(b3_)[0];
  *p_wrong = 1.0f / (1.0f + std::exp(-logit));
}

}  // namespace saguaro::kernels::generic
