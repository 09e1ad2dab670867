// attention_full_f32 against double-precision bidirectional GQA attention (Gemma 4's vision encoder: every patch
// attends to every patch, softmax(q·kᵀ·scale)·v per head), and its thread split.
#include <limits>

#include "saguaro/kernels/kernels.h"
#include "test_util.h"

namespace saguaro::kernels::test {
namespace {

/// Attention of every row over all n rows in double: q [n][heads·hd], k/v [n][kvh·hd].
std::vector<double> RefFullAttention(int n, int heads, int kvh, int hd, double scale, const std::vector<float>& q,
                                     const std::vector<float>& k, const std::vector<float>& v) {
  std::vector<double> out(static_cast<size_t>(n) * heads * hd, 0.0);
  const int kvd = kvh * hd;
  for (int r = 0; r < n; ++r)
    for (int h = 0; h < heads; ++h) {
      const int g = h / (heads / kvh);
      std::vector<double> s(n);
      for (int t = 0; t < n; ++t) {
        double dot = 0.0;
        for (int i = 0; i < hd; ++i) dot += static_cast<double>(q[(r * heads + h) * hd + i]) * k[t * kvd + g * hd + i];
        s[t] = dot * scale;
      }
      const double mx = *std::max_element(s.begin(), s.end());
      double sum = 0.0;
      for (auto& x : s) sum += (x = std::exp(x - mx));
      for (int t = 0; t < n; ++t)
        for (int i = 0; i < hd; ++i) out[(r * heads + h) * hd + i] += s[t] / sum * v[t * kvd + g * hd + i];
    }
  return out;
}

/// Checks attention_full_f32<H, KVH, HD> over `rows` random rows; the output starts as NaN.
template <int H, int KVH, int HD>
void CheckFullAttention(int32_t rows, float scale) {
  SCOPED_TRACE(testing::Message() << "H " << H << " KVH " << KVH << " HD " << HD << " rows " << rows);
  const auto q = RandomFloats(static_cast<size_t>(rows) * H * HD, 700 + rows, -3.0f, 3.0f);
  const auto k = RandomFloats(static_cast<size_t>(rows) * KVH * HD, 701 + rows);
  const auto v = RandomFloats(static_cast<size_t>(rows) * KVH * HD, 702 + rows);
  std::vector<float> out(q.size(), std::numeric_limits<float>::quiet_NaN());
  attention_full_f32<H, KVH, HD>(rows, q.data(), k.data(), v.data(), scale, out.data());
  ExpectClose(out, RefFullAttention(rows, H, KVH, HD, scale, q, k, v));
}

TEST(AttentionFullF32, OneRowIsItsValue) {
  CheckFullAttention<2, 2, 8>(1, 1.0f);
}

TEST(AttentionFullF32, Rows) {
  for (int32_t rows : {2, 3, 9, 64, 65, 130}) CheckFullAttention<4, 4, 16>(rows, 0.25f);
  CheckFullAttention<3, 3, 64>(37, 1.0f);  // Gemma 4's scale 1 (q/k norms instead of 1/sqrt(hd))
  CheckFullAttention<2, 2, 72>(20, 1.0f);  // the large models' head size
}

TEST(AttentionFullF32, GqaRatios) {
  CheckFullAttention<4, 2, 16>(11, 0.25f);  // 2:1
  CheckFullAttention<8, 2, 16>(11, 0.25f);  // 4:1
  CheckFullAttention<8, 1, 12>(11, 0.3f);   // 8:1, a head size of three 4-lane vectors
}

TEST(AttentionFullF32, EveryRowSeesEveryRow) {
  // A key that matches every query strongly takes all the weight, wherever it sits: the last row for the first
  // query, the first row for the last (a causal mask would hide one of them).
  constexpr int HD = 8, n = 5;
  for (int key : {0, n - 1}) {
    std::vector<float> q(n * HD, 1.0f), k(n * HD, 0.0f), v(n * HD);
    for (int t = 0; t < n; ++t)
      for (int i = 0; i < HD; ++i) v[t * HD + i] = static_cast<float>(t);
    for (int i = 0; i < HD; ++i) k[key * HD + i] = 10.0f;
    std::vector<float> out(n * HD);
    attention_full_f32<1, 1, HD>(n, q.data(), k.data(), v.data(), 1.0f, out.data());
    for (float o : out) EXPECT_NEAR(o, key, 1e-6) << "key row " << key;
  }
}

TEST(AttentionFullF32, ThreadSplitBitIdentical) {
  constexpr int H = 4, KVH = 2, HD = 32, rows = 70;
  const auto q = RandomFloats(rows * H * HD, 710, -3.0f, 3.0f);
  const auto k = RandomFloats(rows * KVH * HD, 711), v = RandomFloats(rows * KVH * HD, 712);
  ExpectThreadSplitBitIdentical(q.size(), [&](float* out, const Parallel* par) {
    attention_full_f32<H, KVH, HD>(rows, q.data(), k.data(), v.data(), 0.2f, out, par);
  });
}

}  // namespace
}  // namespace saguaro::kernels::test
