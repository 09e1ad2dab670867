// An audio conformer's kernels (generic): Gemma 4's subsampling convolution, its local attention with relative
// position keys, and its gated causal light convolution (docs/gemma4-audio.md). Rows are time frames; the
// weights are float32 in torch's layout.
//
// Each has a step form for a streamed encode: the call gets the rows that became final after the `done` rows of
// earlier calls, and the rows before them that it reads come from a ring (the last min(done, Cap) rows,
// right-aligned: time −s is at ring row Cap − s), which the call then updates with its own rows. A row computes the
// same operations in the same order whether its neighbours came from the ring or from the call, so a clip encoded
// step by step equals the whole-clip call bit for bit (conformer_step_test.cpp).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "saguaro/kernels/generic/activation.h"
#include "saguaro/kernels/parallel.h"

namespace saguaro::kernels::generic {

/// ring[Cap][W] (its last `past` rows valid, in time order) becomes the last Cap rows of (those rows, x[rows][W]);
/// returns the new count of valid rows, min(past + rows, Cap).
template <int Cap, int W>
inline int32_t push_ring_rows_f32(float* ring, int32_t past, const float* x, int32_t rows) {
  constexpr int64_t kRow = W;
  if (rows >= Cap) {
    std::memcpy(ring, x + (int64_t{rows} - Cap) * kRow, sizeof(float) * Cap * kRow);
    return Cap;
  }
  std::memmove(ring, ring + rows * kRow, sizeof(float) * (Cap - rows) * kRow);
  std::memcpy(ring + (Cap - rows) * kRow, x, sizeof(float) * rows * kRow);
  return past + rows < Cap ? past + rows : Cap;
}

/// out[(rows + 1) / 2][(F + 1) / 2][Cout] = ReLU(LayerNorm_c(conv(x))) of x[rows][F][Cin]: a 3×3 convolution of
/// stride 2 and zero padding 1 over (time, frequency) with w[Cout][Cin][3][3] (torch's Conv2d, no bias), then at each
/// output (frame, frequency) a LayerNorm over the Cout channels (mean removed, biased variance, weight norm[Cout],
/// no bias) and a ReLU. Output frames are split over the threads of `par`. `before` is the input row before x[0]
/// (null: zeros, the clip's start).
template <int F, int Cin, int Cout>
inline void subsample_conv_rows_f32(int32_t rows, const float* before, const float* x, const void* weight,
                                    const void* norm, float eps, float* out, const Parallel* par) {
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
            const float* row = ti < 0 ? before : ti < rows ? x + ti * F * Cin : nullptr;
            if (!row) continue;
            for (int df = 0; df < 3; ++df) {
              const int fi = 2 * f - 1 + df;
              if (fi < 0 || fi >= F) continue;
              const float* xi = row + fi * Cin;
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

/// subsample_conv_rows_f32 of a whole clip.
template <int F, int Cin, int Cout>
inline void subsample_conv_f32(int32_t rows, const float* x, const void* weight, const void* norm, float eps,
                               float* out, const Parallel* par = nullptr) {
  subsample_conv_rows_f32<F, Cin, Cout>(rows, nullptr, x, weight, norm, eps, out, par);
}

/// The step form: x holds the `rows` input rows after the `done` rows of earlier steps (`done` and `rows` even
/// except at the end of the clip, so that no output row straddles steps); `ring[1][F·Cin]` holds the input row
/// before x[0] (unread when `done` is 0) and afterwards x's last row.
template <int F, int Cin, int Cout>
inline void subsample_conv_step_f32(int32_t rows, int32_t done, float* ring, const float* x, const void* weight,
                                    const void* norm, float eps, float* out, const Parallel* par = nullptr) {
  subsample_conv_rows_f32<F, Cin, Cout>(rows, done > 0 ? ring : nullptr, x, weight, norm, eps, out, par);
  push_ring_rows_f32<1, F * Cin>(ring, done > 0 ? 1 : 0, x, rows);
}

/// Gemma 4's audio attention of q, k, v[rows][H][HD] into out[rows][H][HD] (out aliases none of them): for query i
/// and key j (d = i − j) with 0 ≤ d < Past or 0 < −d < Future, the logit is q̂·k̂ + q̂·rel[TableEnd − Past + d] (the
/// second term only where that index is not negative), q̂ = q·HD^-½/ln 2·softplus(per_dim_scale[HD]),
/// k̂ = k·ln(1 + e)/ln 2, rel = relative_table[TableEnd + 1][H·HD], the relative position keys the importer computes
/// from the model's weights (docs/gemma4-audio.md); then cap·tanh(logit/cap), a float32 softmax over the allowed keys
/// and the weighted V sum. Keys before the call's first row are the last `past` rows of past_k, past_v[Past − 1][H][HD]
/// (right-aligned; null when `past` is 0). (row, head) pairs are split over the threads of `par`.
template <int H, int HD, int Past, int Future, int TableEnd>
inline void local_attention_rows_f32(int32_t rows, int32_t past, const float* past_k, const float* past_v,
                                     const float* q, const float* k, const float* v, const void* per_dim_scale,
                                     const void* relative_table, float cap, float* out, const Parallel* par) {
  constexpr int kD = H * HD;
  constexpr int kFutureKeys = Future > 1 ? Future - 1 : 0;
  constexpr int kWindow = Past + kFutureKeys;
  const float* table = static_cast<const float*>(relative_table);
  const float* pds = static_cast<const float*>(per_dim_scale);
  float q_scale[HD];
  const double ln2 = std::log(2.0);
  for (int j = 0; j < HD; ++j) {
    const double s = pds[j];
    const double softplus = s > 20.0 ? s : std::log1p(std::exp(s));  // torch.nn.functional.softplus
    q_scale[j] = static_cast<float>(1.0 / std::sqrt(double{HD}) / ln2 * softplus);
  }
  const float k_scale = static_cast<float>(std::log1p(std::exp(1.0)) / ln2);
  // Row t of the keys and values: the call's own, or the ring's for t < 0.
  auto key = [&](int64_t t) { return t < 0 ? past_k + (Past - 1 + t) * kD : k + t * kD; };
  auto value = [&](int64_t t) { return t < 0 ? past_v + (Past - 1 + t) * kD : v + t * kD; };
  const int64_t work = int64_t{rows} * H * kWindow * HD * 3;
  parallel_ranges(par, int64_t{rows} * H, 1, work, [&](int64_t p0, int64_t p1) {
    float qs[HD];
    float logits[kWindow];
    for (int64_t p = p0; p < p1; ++p) {
      const int64_t i = p / H;
      const int h = static_cast<int>(p % H);
      const float* qh = q + i * kD + h * HD;
      for (int j = 0; j < HD; ++j) qs[j] = qh[j] * q_scale[j];
      const int64_t first = i - Past + 1 > -past ? i - Past + 1 : -past;
      const int64_t last = i + kFutureKeys < rows - 1 ? i + kFutureKeys : rows - 1;
      float max_val = -INFINITY;
      for (int64_t t = first; t <= last; ++t) {
        const float* kt = key(t) + h * HD;
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
        const float* vt = value(t) + h * HD;
        for (int j = 0; j < HD; ++j) o[j] += a * vt[j];
      }
    }
  });
}

/// local_attention_rows_f32 of a whole clip.
template <int H, int HD, int Past, int Future, int TableEnd>
inline void local_attention_f32(int32_t rows, const float* q, const float* k, const float* v,
                                const void* per_dim_scale, const void* relative_table, float cap, float* out,
                                const Parallel* par = nullptr) {
  local_attention_rows_f32<H, HD, Past, Future, TableEnd>(rows, 0, nullptr, nullptr, q, k, v, per_dim_scale,
                                                          relative_table, cap, out, par);
}

/// The step form: q, k, v hold the `rows` frames after the `done` frames of earlier steps; ring_k,
/// ring_v[Past − 1][H·HD] hold the keys and values of the last min(done, Past − 1) of those (right-aligned) and
/// afterwards of the last min(done + rows, Past − 1) frames. A frame reads no later one (Future ≤ 1), so a step's
/// frames are final.
template <int H, int HD, int Past, int Future, int TableEnd>
inline void local_attention_step_f32(int32_t rows, int32_t done, float* ring_k, float* ring_v, const float* q,
                                     const float* k, const float* v, const void* per_dim_scale,
                                     const void* relative_table, float cap, float* out,
                                     const Parallel* par = nullptr) {
  static_assert(Future <= 1, "a streamed frame cannot wait for later frames");
  const int32_t past = done < Past - 1 ? done : Past - 1;
  local_attention_rows_f32<H, HD, Past, Future, TableEnd>(rows, past, ring_k, ring_v, q, k, v, per_dim_scale,
                                                          relative_table, cap, out, par);
  if constexpr (Past > 1) {
    push_ring_rows_f32<Past - 1, H * HD>(ring_k, past, k, rows);
    push_ring_rows_f32<Past - 1, H * HD>(ring_v, past, v, rows);
  }
}

/// out[rows][N] = the depthwise causal convolution (weight[N][1][K], zeros before the clip) of the GLU of
/// x[rows][2N]: g[t][c] = x[t][c]·sigmoid(x[t][N + c]) into g[rows][N], then
/// out[t][c] = Σ_j weight[c][j]·g[t − K + 1 + j][c], where g[t < 0] is row K − 1 + t of past_g[K − 1][N] when
/// t ≥ −past (right-aligned; null when `past` is 0), else zero.
template <int N, int K>
inline void gated_causal_conv_rows_f32(int32_t rows, int32_t past, const float* past_g, const float* x,
                                       const void* weight, float* g, float* out) {
  const float* w = static_cast<const float*>(weight);
  for (int64_t t = 0; t < rows; ++t)
    for (int c = 0; c < N; ++c) {
      const float* xt = x + t * 2 * N;
      g[t * N + c] = xt[c] * (1.0f / (1.0f + expf(-xt[N + c])));
    }
  for (int64_t t = 0; t < rows; ++t)
    for (int c = 0; c < N; ++c) {
      float acc = 0.0f;
      for (int j = 0; j < K; ++j) {
        const int64_t s = t - K + 1 + j;
        if (s >= 0)
          acc += w[c * K + j] * g[s * N + c];
        else if (s >= -past)
          acc += w[c * K + j] * past_g[(K - 1 + s) * N + c];
      }
      out[t * N + c] = acc;
    }
}

/// gated_causal_conv_rows_f32 of a whole clip.
template <int N, int K>
inline void gated_causal_conv_f32(int32_t rows, const float* x, const void* weight, float* g, float* out) {
  gated_causal_conv_rows_f32<N, K>(rows, 0, nullptr, x, weight, g, out);
}

/// The step form: x holds the `rows` frames after the `done` frames of earlier steps; ring[K − 1][N] holds the GLU
/// outputs of the last min(done, K − 1) of those (right-aligned) and afterwards of the last min(done + rows, K − 1).
template <int N, int K>
inline void gated_causal_conv_step_f32(int32_t rows, int32_t done, float* ring, const float* x, const void* weight,
                                       float* g, float* out) {
  const int32_t past = done < K - 1 ? done : K - 1;
  gated_causal_conv_rows_f32<N, K>(rows, past, ring, x, weight, g, out);
  if constexpr (K > 1) push_ring_rows_f32<K - 1, N>(ring, past, g, rows);
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
