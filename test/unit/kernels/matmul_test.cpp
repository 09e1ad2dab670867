// matmul_f32 and logits_f32 against double-precision dot products.
#include "saguaro/kernels/kernels.h"
#include "test_util.h"

namespace saguaro::kernels::test {
namespace {

/// y[r][n] = Σ_k x[r][k]·W[n][k] in double.
std::vector<double> RefMatmul(int rows, int K, int N, const std::vector<float>& x, const std::vector<float>& w) {
  std::vector<double> y(static_cast<size_t>(rows) * N);
  for (int r = 0; r < rows; ++r)
    for (int n = 0; n < N; ++n) {
      double acc = 0.0;
      for (int k = 0; k < K; ++k) acc += static_cast<double>(x[r * K + k]) * w[n * K + k];
      y[r * N + n] = acc;
    }
  return y;
}

/// Checks matmul_f32<K, N> on `rows` random rows.
template <int K, int N>
void CheckMatmul(int32_t rows) {
  const auto x = RandomFloats(rows * K, 10 + K);
  const auto w = RandomFloats(N * K, 20 + N);
  std::vector<float> y(rows * N);
  matmul_f32<K, N>(rows, x.data(), w.data(), y.data());
  ExpectClose(y, RefMatmul(rows, K, N, x, w));
}

TEST(MatmulF32, Shapes) {
  CheckMatmul<1, 1>(1);
  CheckMatmul<8, 3>(1);
  CheckMatmul<64, 172>(4);
  CheckMatmul<172, 64>(7);
  CheckMatmul<256, 96>(3);
}

/// Checks logits_f32<K, N> in both modes on `rows` rows.
template <int K, int N>
void CheckLogits(int32_t rows) {
  const auto x = RandomFloats(rows * K, 30 + K);
  const auto w = RandomFloats(N * K, 40 + N);
  const auto want = RefMatmul(rows, K, N, x, w);
  std::vector<float> all(rows * N);
  logits_f32<K, N>(rows, true, x.data(), w.data(), all.data());
  ExpectClose(all, want);
  std::vector<float> last(N, -7.0f);
  logits_f32<K, N>(rows, false, x.data(), w.data(), last.data());
  ExpectClose(last.data(), want.data() + static_cast<size_t>(rows - 1) * N, N);
}

TEST(LogitsF32, AllAndLastRow) {
  CheckLogits<64, 512>(1);
  CheckLogits<64, 512>(6);
  CheckLogits<32, 50>(3);
}

}  // namespace
}  // namespace saguaro::kernels::test
