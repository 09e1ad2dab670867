// An audio conformer's kernels (generic): Gemma 4's subsampling convolution, its local attention with relative
// position keys, and its gated causal light convolution (docs/gemma4-audio.md). Rows are time frames; the
// weights are float32 in torch's layout.
#pragma once

#include <cmath>
#include <cstdint>

#include "saguaro/kernels/generic/activation.h"
#include "saguaro/kernels/parallel.h"

namespace saguaro::kernels::generic {

/// out[(rows + 1) / 2][(F + 1) / 2][Cout] = ReLU(LayerNorm_c(conv(x))) of x[rows][F][Cin]: a 3×3 convolution of
/// stride 2 and zero padding 1 over (time, frequency) with w[Cout][Cin][3][3] (torch's Conv2d, no bias), then at each
/// output (frame, frequency) a LayerNorm over the Cout channels (mean removed, biased variance, weight norm[Cout],
/// no bias) and a ReLU. Output frames are split over the threads of `par`.
template <int F, int Cin, int Cout>
inline void subsample_conv_f32(int32_t rows, const float* x, const void* weight, const void* norm, float eps,
                               float* out, const Parallel* par = nullptr) {
  constexpr int kFo = (F + 1) / 2;
  const float* w = static_cast<const float*>(weight);
  const float* gamma = static_cast<const float*>(norm);
  const int64_t frames = (int64_t{rows} + 1) / 2;
  parallel_ranges(par, frames, 1, frames * kFo * Cout * Cin * 9, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t)
      for (int f = 0; f < kFo; ++f) {
        float* o = out + (t * kFo + f) * Cout;
        for (int co = 0; co < Cout; ++co) {
          float acc = 0.0f;
          for (int dt = 0; dt < 3; ++dt) {
            const int64_t ti = 2 * t - 1 + dt;
            if (ti < 0 || ti >= rows) continue;
            for (int df = 0; df < 3; ++df) {
              const int fi = 2 * f - 1 + df;
              if (fi < 0 || fi >= F) continue;
              const float* xi = x + (ti * F + fi) * Cin;
              const float* wi = w + static_cast<int64_t>(co) * Cin * 9 + dt * 3 + df;
              for (int ci = 0; ci < Cin; ++ci) acc += wi[ci * 9] * xi[ci];
            }
          }
          o[co] = acc;
        }
        float mean = 0.0f;
        for (int co = 0; co < Cout; ++co) mean += o[co];
        mean /= Cout;
        float var = 0.0f;
        for (int co = 0; co < Cout; ++co) var += (o[co] - mean) * (o[co] - mean);
        const float inv = 1.0f / sqrtf(var / Cout + eps);
        for (int co = 0; co < Cout; ++co) {
          const float y = (o[co] - mean) * inv * gamma[co];
          o[co] = y > 0.0f ? y : 0.0f;
        }
      }
  });
}

/// The relative position keys of local_attention_f32: table[p][H·HD] = relk · sinusoid(p) for p = 0 … TableEnd,
/// sinusoid(p) = [sin(p·τ_i), cos(p·τ_i)], τ_i = exp(−i·ln 10⁴ / max(H·HD/2 − 1, 1)), i < H·HD/2 (relk is
/// [H·HD][H·HD], torch's [out, in]); `sinusoid` holds H·HD floats of scratch.
template <int D, int TableEnd>
inline void relative_keys_f32(const float* relk, float* table, float* sinusoid) {
  constexpr int kHalf = D / 2;
  const double step = std::log(1.0e4) / (kHalf - 1 > 1 ? kHalf - 1 : 1);
  for (int p = 0; p <= TableEnd; ++p) {
    for (int i = 0; i < kHalf; ++i) {
      const double angle = p * std::exp(-i * step);
      sinusoid[i] = static_cast<float>(std::sin(angle));
      sinusoid[kHalf + i] = static_cast<float>(std::cos(angle));
    }
    for (int o = 0; o < D; ++o) {
      float acc = 0.0f;
      for (int i = 0; i < D; ++i) acc += relk[static_cast<int64_t>(o) * D + i] * sinusoid[i];
      table[static_cast<int64_t>(p) * D + o] = acc;
    }
  }
}

/// Gemma 4's audio attention of q, k, v[rows][H][HD] into out[rows][H][HD] (out aliases none of them): for query i
/// and key j (d = i − j) with 0 ≤ d < Past or 0 < −d < Future, the logit is q̂·k̂ + q̂·rel[TableEnd − Past + d] (the
/// second term only where that index is not negative), q̂ = q·HD^-½/ln 2·softplus(per_dim_scale[HD]),
/// k̂ = k·ln(1 + e)/ln 2, rel the table of relative_keys_f32; then cap·tanh(logit/cap), a float32 softmax over the
/// allowed keys and the weighted V sum. `table` is (TableEnd + 2)·H·HD floats of scratch. (row, head) pairs are split
/// over the threads of `par`.
template <int H, int HD, int Past, int Future, int TableEnd>
inline void local_attention_f32(int32_t rows, const float* q, const float* k, const float* v,
                                const void* per_dim_scale, const void* relative_keys, float cap, float* table,
                                float* out, const Parallel* par = nullptr) {
  constexpr int kD = H * HD;
  constexpr int kFutureKeys = Future > 1 ? Future - 1 : 0;
  constexpr int kWindow = Past + kFutureKeys;
  relative_keys_f32<kD, TableEnd>(static_cast<const float*>(relative_keys), table, table + (TableEnd + 1) * kD);
  const float* pds = static_cast<const float*>(per_dim_scale);
  float q_scale[HD];
  const double ln2 = std::log(2.0);
  for (int j = 0; j < HD; ++j) {
    const double s = pds[j];
    const double softplus = s > 20.0 ? s : std::log1p(std::exp(s));  // torch.nn.functional.softplus
    q_scale[j] = static_cast<float>(1.0 / std::sqrt(double{HD}) / ln2 * softplus);
  }
  const float k_scale = static_cast<float>(std::log1p(std::exp(1.0)) / ln2);
  const int64_t work = int64_t{rows} * H * kWindow * HD * 3;
  parallel_ranges(par, int64_t{rows} * H, 1, work, [&](int64_t p0, int64_t p1) {
    float qs[HD];
    float logits[kWindow];
    for (int64_t p = p0; p < p1; ++p) {
      const int64_t i = p / H;
      const int h = static_cast<int>(p % H);
      const float* qh = q + i * kD + h * HD;
      for (int j = 0; j < HD; ++j) qs[j] = qh[j] * q_scale[j];
      const int64_t first = i - Past + 1 > 0 ? i - Past + 1 : 0;
      const int64_t last = i + kFutureKeys < rows - 1 ? i + kFutureKeys : rows - 1;
      float max_val = -INFINITY;
      for (int64_t t = first; t <= last; ++t) {
        const float* kt = k + t * kD + h * HD;
        float ac = 0.0f;
        for (int j = 0; j < HD; ++j) ac += qs[j] * (kt[j] * k_scale);
        float bd = 0.0f;
        if (const int64_t row = TableEnd - Past + (i - t); row >= 0) {
          const float* rel = table + row * kD + h * HD;
          for (int j = 0; j < HD; ++j) bd += qs[j] * rel[j];
        }
        const float logit = cap * tanhf((ac + bd) / cap);
        logits[t - first] = logit;
        if (logit > max_val) max_val = logit;
      }
      float sum = 0.0f;
      for (int64_t t = first; t <= last; ++t) sum += (logits[t - first] = expf(logits[t - first] - max_val));
      float* o = out + i * kD + h * HD;
      for (int j = 0; j < HD; ++j) o[j] = 0.0f;
      for (int64_t t = first; t <= last; ++t) {
        const float a = logits[t - first] / sum;
        const float* vt = v + t * kD + h * HD;
        for (int j = 0; j < HD; ++j) o[j] += a * vt[j];
      }
    }
  });
}

/// out[rows][N] = the depthwise causal convolution (weight[N][1][K], zeros before frame 0) of the GLU of
/// x[rows][2N]: g[t][c] = x[t][c]·sigmoid(x[t][N + c]) into g[rows][N], then
/// out[t][c] = Σ_j weight[c][j]·g[t − K + 1 + j][c].
template <int N, int K>
inline void gated_causal_conv_f32(int32_t rows, const float* x, const void* weight, float* g, float* out) {
  const float* w = static_cast<const float*>(weight);
  for (int64_t t = 0; t < rows; ++t)
    for (int c = 0; c < N; ++c) {
      const float* xt = x + t * 2 * N;
      g[t * N + c] = xt[c] * (1.0f / (1.0f + expf(-xt[N + c])));
    }
  for (int64_t t = 0; t < rows; ++t)
    for (int c = 0; c < N; ++c) {
      float acc = 0.0f;
      for (int j = 0; j < K; ++j)
        if (const int64_t s = t - K + 1 + j; s >= 0) acc += w[c * K + j] * g[s * N + c];
      out[t * N + c] = acc;
    }
}

/// x[rows][N] = silu(x), in place (an activation without a gate).
template <int N>
inline void silu_rows_f32(int32_t rows, float* x) {
  const int64_t n = static_cast<int64_t>(rows) * N;
  for (int64_t i = 0; i < n; ++i) x[i] = silu_f32(x[i]);
}

/// x[r][c] += bias[c], in place, with the float32 weight bias[N] (a linear's bias).
template <int N>
inline void add_bias_f32(int32_t rows, float* x, const void* bias) {
  const float* b = static_cast<const float*>(bias);
  for (int32_t r = 0; r < rows; ++r)
    for (int c = 0; c < N; ++c) x[static_cast<int64_t>(r) * N + c] += b[c];
}

}  // namespace saguaro::kernels::generic
