// Bit-exactness with llama2.c: kernels must equal run.c's float loops (transcribed below) exactly.
#include <cstring>

#include "saguaro/kernels/kernels.h"
#include "test_util.h"

namespace saguaro::kernels::test {
namespace {

// ---- run.c functions, transcribed with their float operation order (eps fixed at 1e-5f there). ----

/// run.c rmsnorm.
void RunCRmsnorm(float* o, const float* x, const float* weight, int size) {
  float ss = 0.0f;
  for (int j = 0; j < size; j++) ss += x[j] * x[j];
  ss /= size;
  ss += 1e-5f;
  ss = 1.0f / sqrtf(ss);
  for (int j = 0; j < size; j++) o[j] = weight[j] * (ss * x[j]);
}

/// run.c matmul: W (d,n) @ x (n,) -> xout (d,).
void RunCMatmul(float* xout, const float* x, const float* w, int n, int d) {
  for (int i = 0; i < d; i++) {
    float val = 0.0f;
    for (int j = 0; j < n; j++) val += w[i * n + j] * x[j];
    xout[i] = val;
  }
}

/// run.c RoPE for q (dim) and k (kv_dim) at one position.
void RunCRope(float* q, float* k, int pos, int dim, int kv_dim, int head_size) {
  for (int i = 0; i < dim; i += 2) {
    int head_dim = i % head_size;
    float freq = 1.0f / powf(10000.0f, head_dim / (float)head_size);
    float val = pos * freq;
    float fcr = cosf(val);
    float fci = sinf(val);
    int rotn = i < kv_dim ? 2 : 1;
    for (int v = 0; v < rotn; v++) {
      float* vec = v == 0 ? q : k;
      float v0 = vec[i];
      float v1 = vec[i + 1];
      vec[i] = v0 * fcr - v1 * fci;
      vec[i + 1] = v0 * fci + v1 * fcr;
    }
  }
}

/// run.c softmax.
void RunCSoftmax(float* x, int size) {
  float max_val = x[0];
  for (int i = 1; i < size; i++)
    if (x[i] > max_val) max_val = x[i];
  float sum = 0.0f;
  for (int i = 0; i < size; i++) {
    x[i] = expf(x[i] - max_val);
    sum += x[i];
  }
  for (int i = 0; i < size; i++) x[i] /= sum;
}

/// run.c multihead attention for one query position over key/value caches [seq][kv_dim].
void RunCAttention(float* xb_all, const float* q_all, const float* key_cache, const float* value_cache, int pos,
                   int n_heads, int kv_mul, int head_size, int kv_dim, float* att_all) {
  for (int h = 0; h < n_heads; h++) {
    const float* q = q_all + h * head_size;
    float* att = att_all;
    for (int t = 0; t <= pos; t++) {
      const float* k = key_cache + t * kv_dim + (h / kv_mul) * head_size;
      float score = 0.0f;
      for (int i = 0; i < head_size; i++) score += q[i] * k[i];
      score /= sqrtf(head_size);
      att[t] = score;
    }
    RunCSoftmax(att, pos + 1);
    float* xb = xb_all + h * head_size;
    memset(xb, 0, head_size * sizeof(float));
    for (int t = 0; t <= pos; t++) {
      const float* v = value_cache + t * kv_dim + (h / kv_mul) * head_size;
      float a = att[t];
      for (int i = 0; i < head_size; i++) xb[i] += a * v[i];
    }
  }
}

/// Expects bitwise-equal float arrays.
void ExpectBitEqual(const float* a, const float* b, size_t n) {
  EXPECT_EQ(std::memcmp(a, b, n * sizeof(float)), 0) << "first value " << a[0] << " vs " << b[0];
}

// stories260K shapes: dim 64, hidden 172, 8 heads, 4 KV heads, head size 8.
constexpr int kDim = 64, kHidden = 172, kHeads = 8, kKvHeads = 4, kHd = 8, kKvDim = kKvHeads * kHd, kSeq = 32;

TEST(Llama2cOrder, RmsnormMatmulSiluBitExact) {
  const auto x = RandomFloats(kDim, 1, -2.0f, 2.0f);
  const auto w = RandomFloats(kDim, 2);
  const auto w1 = RandomFloats(kHidden * kDim, 3);
  float want[kDim], got[kDim];
  RunCRmsnorm(want, x.data(), w.data(), kDim);
  rmsnorm_f32<kDim, false>(1, x.data(), w.data(), 1e-5f, got);
  ExpectBitEqual(got, want, kDim);
  float hw[kHidden], hg[kHidden];
  RunCMatmul(hw, want, w1.data(), kDim, kHidden);
  matmul_f32<kDim, kHidden>(1, got, w1.data(), hg);
  ExpectBitEqual(hg, hw, kHidden);
  float up[kHidden], sw[kHidden], sg[kHidden];
  for (int i = 0; i < kHidden; i++) up[i] = 0.5f - hw[i];
  for (int i = 0; i < kHidden; i++) {
    float val = hw[i];
    val *= (1.0f / (1.0f + expf(-val)));
    val *= up[i];
    sw[i] = val;
  }
  gated_act_f32<kHidden, 0>(1, hg, up, sg);
  ExpectBitEqual(sg, sw, kHidden);
}

TEST(Llama2cOrder, RopeStyle0BitExact) {
  for (int pos : {0, 1, 7, 300, 511}) {
    auto q = RandomFloats(kDim, 10 + pos), k = RandomFloats(kKvDim, 20 + pos);
    auto qk = q, kk = k;
    RunCRope(q.data(), k.data(), pos, kDim, kKvDim, kHd);
    rope_f32<kHeads, kHd, 0>(1, pos, qk.data(), 10000.0f, 1.0f);
    rope_f32<kKvHeads, kHd, 0>(1, pos, kk.data(), 10000.0f, 1.0f);
    ExpectBitEqual(qk.data(), q.data(), kDim);
    ExpectBitEqual(kk.data(), k.data(), kKvDim);
  }
}

TEST(Llama2cOrder, PrefillRowsEqualRunCPositions) {
  // Rope with rows > 1 must give each row exactly what run.c gives that position.
  const int32_t pos0 = 5, rows = 4;
  auto q = RandomFloats(rows * kDim, 30);
  auto qk = q;
  rope_f32<kHeads, kHd, 0>(rows, pos0, qk.data(), 10000.0f, 1.0f);
  float dummy_k[kKvDim] = {};
  for (int r = 0; r < rows; ++r) RunCRope(q.data() + r * kDim, dummy_k, pos0 + r, kDim, 0, kHd);
  ExpectBitEqual(qk.data(), q.data(), rows * kDim);
}

TEST(Llama2cOrder, AttentionDivideBySqrtHdBitExact) {
  const auto kc = RandomFloats(kSeq * kKvDim, 40), vc = RandomFloats(kSeq * kKvDim, 41);
  const int32_t pos0 = 6, rows = 5;
  const auto q = RandomFloats(rows * kDim, 42, -3.0f, 3.0f);
  std::vector<float> got(rows * kDim), want(rows * kDim), att(kSeq);
  std::vector<float> scratch(attention_scratch_floats(kKvHeads, kHd, kSeq, rows));
  // run.c's caches are [pos][kv_dim]; Saguaro's are head-major, [kv_heads][seq][head_dim].
  std::vector<float> kh(kc.size()), vh(vc.size());
  for (int t = 0; t < kSeq; ++t)
    for (int g = 0; g < kKvHeads; ++g)
      for (int i = 0; i < kHd; ++i) {
        kh[(g * kSeq + t) * kHd + i] = kc[t * kKvDim + g * kHd + i];
        vh[(g * kSeq + t) * kHd + i] = vc[t * kKvDim + g * kHd + i];
      }
  // The call's own rows, positions pos0.., come from k/v (run.c's layout, [row][kv_dim]); the cache's from
  // before pos0.
  attention_f32<kHeads, kKvHeads, kHd, kSeq, 0, true>(rows, pos0, q.data(), kc.data() + pos0 * kKvDim,
                                                       vc.data() + pos0 * kKvDim, kh.data(), vh.data(), 0.0f, 0.0f,
                                                       scratch.data(), got.data());
  for (int r = 0; r < rows; ++r)
    RunCAttention(want.data() + r * kDim, q.data() + r * kDim, kc.data(), vc.data(), pos0 + r, kHeads,
                  kHeads / kKvHeads, kHd, kKvDim, att.data());
  ExpectBitEqual(got.data(), want.data(), rows * kDim);
}

}  // namespace
}  // namespace saguaro::kernels::test
