// matmul_f32/f16 and logits_f32/f16 against double-precision dot products; the column split over threads.
#include "saguaro/kernels/kernels.h"
#include "test_util.h"

namespace saguaro::kernels::test {
namespace {

/// A weight as the reference sees it: float32 as is, binary16 bits through the compiler's half type.
double WeightValue(float w) { return w; }
double WeightValue(uint16_t h) { return CompilerHalfValue(h); }

/// y[r][n] = Σ_k x[r][k]·W[n][k] in double.
template <class Wt>
std::vector<double> RefMatmul(int rows, int K, int N, const std::vector<float>& x, const std::vector<Wt>& w) {
  std::vector<double> y(static_cast<size_t>(rows) * N);
  for (int r = 0; r < rows; ++r)
    for (int n = 0; n < N; ++n) {
      double acc = 0.0;
      for (int k = 0; k < K; ++k) acc += static_cast<double>(x[r * K + k]) * WeightValue(w[n * K + k]);
      y[r * N + n] = acc;
    }
  return y;
}

/// The selected matmul of the weights' element type.
template <int K, int N>
void Matmul(int32_t rows, const float* x, const float* w, float* y, const Parallel* par = nullptr) {
  matmul_f32<K, N>(rows, x, w, y, par);
}
template <int K, int N>
void Matmul(int32_t rows, const float* x, const uint16_t* w, float* y, const Parallel* par = nullptr) {
  matmul_f16<K, N>(rows, x, w, y, par);
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

/// Checks matmul_f16<K, N> and logits_f16<K, N> (both modes) on 1..9 random rows with binary16 weights of `kind`;
/// x is scaled so that even products with subnormal weights give outputs of order 1 and above.
template <int K, int N>
void CheckMatmulF16(HalfKind kind) {
  const float xs = kind == HalfKind::kSubnormal ? 65536.0f : 2.0f;
  const auto w = RandomHalves(static_cast<size_t>(N) * K, 20 + N + K, kind);
  for (int32_t rows = 1; rows <= 9; ++rows) {
    SCOPED_TRACE(testing::Message() << "K " << K << " N " << N << " rows " << rows << " kind "
                                    << static_cast<int>(kind));
    const auto x = RandomFloats(static_cast<size_t>(rows) * K, 10 + K + rows, -xs, xs);
    const auto want = RefMatmul(rows, K, N, x, w);
    std::vector<float> y(want.size(), -9.0f);
    matmul_f16<K, N>(rows, x.data(), w.data(), y.data());
    ExpectClose(y, want);
    std::vector<float> all(want.size(), -9.0f);
    logits_f16<K, N>(rows, true, x.data(), w.data(), all.data());
    ExpectClose(all, want);
    std::vector<float> last(static_cast<size_t>(N) + 1, -9.0f);
    logits_f16<K, N>(rows, false, x.data(), w.data(), last.data());
    ExpectClose(last.data(), want.data() + static_cast<size_t>(rows - 1) * N, N);
    EXPECT_EQ(last[N], -9.0f) << "wrote past N";
  }
}

TEST(MatmulF16, Shapes) {
  for (HalfKind kind : {HalfKind::kNormal, HalfKind::kSubnormal, HalfKind::kLarge, HalfKind::kSpecial}) {
    CheckMatmulF16<1, 1>(kind);
    CheckMatmulF16<7, 5>(kind);
    CheckMatmulF16<8, 3>(kind);
    CheckMatmulF16<13, 17>(kind);
    CheckMatmulF16<64, 40>(kind);
    CheckMatmulF16<100, 29>(kind);
    CheckMatmulF16<300, 12>(kind);
  }
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

/// The columns split over 2, 3 and 5 threads give the single-threaded product bit for bit, for weights w.
template <int K, int N, class Wt>
void CheckThreadSplit(int32_t rows, const std::vector<Wt>& w) {
  SCOPED_TRACE(testing::Message() << "K " << K << " N " << N << " rows " << rows << " weight bytes " << sizeof(Wt));
  const auto x = RandomFloats(static_cast<size_t>(rows) * K, 50 + rows);
  ExpectThreadSplitBitIdentical(static_cast<size_t>(rows) * N, [&](float* y, const Parallel* par) {
    Matmul<K, N>(rows, x.data(), w.data(), y, par);
  });
}

TEST(Matmul, ThreadSplitBitIdentical) {
  constexpr int kK = 517, kN = 301;  // rows·N·K above kMinParallelWork for one row
  const auto wf = RandomFloats(static_cast<size_t>(kN) * kK, 60);
  const auto wh = RandomHalves(static_cast<size_t>(kN) * kK, 61, HalfKind::kNormal);
  for (int32_t rows : {1, 6}) {
    CheckThreadSplit<kK, kN>(rows, wf);
    CheckThreadSplit<kK, kN>(rows, wh);
  }
}

}  // namespace
}  // namespace saguaro::kernels::test
