// ISA matmul_f32/f16 and logits_f32/f16 against the generic ones (within 1e-5 of the output scale), independent
// of the row count, of the column tiling and of the thread split; binary16 weights converted exactly.
#include "isa_test_util.h"

namespace saguaro::kernels::test {
namespace {

// The generic and ISA kernels of each weight type, chosen by the weights' element type (float32, binary16 bits).
template <int K, int N>
void GenericMatmul(int32_t rows, const float* x, const float* w, float* y) {
  generic::matmul_f32<K, N>(rows, x, w, y);
}
template <int K, int N>
void GenericMatmul(int32_t rows, const float* x, const uint16_t* w, float* y) {
  generic::matmul_f16<K, N>(rows, x, w, y);
}
template <int K, int N>
void IsaMatmul(int32_t rows, const float* x, const float* w, float* y, const Parallel* par = nullptr) {
  isa::matmul_f32<K, N>(rows, x, w, y, par);
}
template <int K, int N>
void IsaMatmul(int32_t rows, const float* x, const uint16_t* w, float* y, const Parallel* par = nullptr) {
  isa::matmul_f16<K, N>(rows, x, w, y, par);
}
template <int K, int N>
void IsaLogits(int32_t rows, bool all, const float* x, const float* w, float* y) {
  isa::logits_f32<K, N>(rows, all, x, w, y);
}
template <int K, int N>
void IsaLogits(int32_t rows, bool all, const float* x, const uint16_t* w, float* y) {
  isa::logits_f16<K, N>(rows, all, x, w, y);
}

/// Random weights [N][K]: uniform floats, or halves rounded from them.
template <class Wt>
std::vector<Wt> RandomWeights(size_t n, uint32_t seed);
template <>
std::vector<float> RandomWeights<float>(size_t n, uint32_t seed) {
  return RandomFloats(n, seed);
}
template <>
std::vector<uint16_t> RandomWeights<uint16_t>(size_t n, uint32_t seed) {
  return RandomHalves(n, seed, HalfKind::kNormal);
}

/// For 1..9 rows: the ISA product near the generic one; each row equal bit for bit to that row alone, and each
/// column to the product with that weight row alone (N = 1: single-column tiles only); logits of all rows and of
/// the last row equal bit for bit to the product.
template <int K, int N, class Wt>
void CheckMatmul() {
  const auto w = RandomWeights<Wt>(static_cast<size_t>(N) * K, 20 + N + K);
  for (int32_t rows = 1; rows <= 9; ++rows) {
    SCOPED_TRACE(testing::Message() << "K " << K << " N " << N << " rows " << rows << " weight bytes "
                                    << sizeof(Wt));
    const auto x = RandomFloats(static_cast<size_t>(rows) * K, 10 + K + rows, -2.0f, 2.0f);
    std::vector<float> want(static_cast<size_t>(rows) * N), got(want.size(), -9.0f);
    GenericMatmul<K, N>(rows, x.data(), w.data(), want.data());
    IsaMatmul<K, N>(rows, x.data(), w.data(), got.data());
    ExpectNearGeneric(got.data(), want.data(), want.size());

    for (int32_t r = 0; r < rows; ++r) {
      std::vector<float> one(N);
      IsaMatmul<K, N>(1, x.data() + static_cast<size_t>(r) * K, w.data(), one.data());
      ExpectBitEqual(one.data(), got.data() + static_cast<size_t>(r) * N, N);
    }
    std::vector<float> col(rows);
    for (int n = 0; n < N; ++n) {
      IsaMatmul<K, 1>(rows, x.data(), w.data() + static_cast<size_t>(n) * K, col.data());
      for (int32_t r = 0; r < rows; ++r) {
        ExpectBitEqual(&col[r], &got[static_cast<size_t>(r) * N + n], 1);
      }
    }

    std::vector<float> all(want.size(), -9.0f);
    IsaLogits<K, N>(rows, true, x.data(), w.data(), all.data());
    ExpectBitEqual(all.data(), got.data(), got.size());
    std::vector<float> last(static_cast<size_t>(N) + 1, -9.0f);
    IsaLogits<K, N>(rows, false, x.data(), w.data(), last.data());
    ExpectBitEqual(last.data(), got.data() + static_cast<size_t>(rows - 1) * N, N);
    EXPECT_EQ(last[N], -9.0f) << "wrote past N";
  }
}

template <class Wt>
void CheckShapes() {
  CheckMatmul<1, 1, Wt>();
  CheckMatmul<3, 7, Wt>();
  CheckMatmul<8, 3, Wt>();
  CheckMatmul<13, 17, Wt>();
  CheckMatmul<64, 172, Wt>();
  CheckMatmul<172, 64, Wt>();
  CheckMatmul<256, 96, Wt>();
  CheckMatmul<300, 41, Wt>();
  CheckMatmul<1024, 50, Wt>();
  CheckMatmul<3000, 13, Wt>();
}

TEST(IsaMatmul, Shapes) {
  SAGUARO_REQUIRE_ISA();
  CheckShapes<float>();
}

TEST(IsaMatmul, F16Shapes) {
  SAGUARO_REQUIRE_ISA();
  CheckShapes<uint16_t>();
}

// Every finite binary16 value as a weight, read through unit activation rows (row r = e_r, so y[r][n] = W[n][r]):
// the loads (full chunks and the K % 8 / K % 4 tail) convert each one exactly as the compiler does.
TEST(IsaMatmul, F16ConvertsEveryFiniteHalf) {
  SAGUARO_REQUIRE_ISA();
  constexpr int kK = 13, kN = 63488 / kK + 1;  // 63488 finite halves: exponent field < 31, both signs
  std::vector<uint16_t> w(static_cast<size_t>(kN) * kK);
  uint16_t h = 0;
  for (auto& v : w) {
    v = h;
    h = (h & 0x7FFF) == 0x7BFF ? static_cast<uint16_t>((h & 0x8000) ^ 0x8000) : static_cast<uint16_t>(h + 1);
  }
  std::vector<float> x(static_cast<size_t>(kK) * kK, 0.0f);
  for (int r = 0; r < kK; ++r) x[static_cast<size_t>(r) * kK + r] = 1.0f;
  std::vector<float> y(static_cast<size_t>(kK) * kN);
  isa::matmul_f16<kK, kN>(kK, x.data(), w.data(), y.data());
  size_t bad = 0;
  for (int r = 0; r < kK; ++r)
    for (int n = 0; n < kN; ++n) {
      const uint16_t bits = w[static_cast<size_t>(n) * kK + r];
      const float got = y[static_cast<size_t>(r) * kN + n];
      if (!(got == CompilerHalfValue(bits)) && bad++ < 5) {  // ±0 both read as 0 (a sum starts at +0)
        ADD_FAILURE() << "half 0x" << std::hex << bits << std::dec << " read as " << got;
      }
    }
  EXPECT_EQ(bad, 0u);
}

/// The columns split over 2, 3 and 5 threads give the single-threaded product bit for bit.
template <int K, int N, class Wt>
void CheckThreadSplit(int32_t rows) {
  SCOPED_TRACE(testing::Message() << "K " << K << " N " << N << " rows " << rows << " weight bytes " << sizeof(Wt));
  const auto w = RandomWeights<Wt>(static_cast<size_t>(N) * K, 30 + N);
  const auto x = RandomFloats(static_cast<size_t>(rows) * K, 40 + rows);
  ExpectThreadSplitBitIdentical(static_cast<size_t>(rows) * N, [&](float* y, const Parallel* par) {
    IsaMatmul<K, N>(rows, x.data(), w.data(), y, par);
  });
}

TEST(IsaMatmul, ThreadSplitBitIdentical) {
  SAGUARO_REQUIRE_ISA();
  for (int32_t rows : {1, 2, 6}) {  // decode; prefill with a 2-row tail; 4-row tiles with a 2-row tail
    CheckThreadSplit<1024, 203, float>(rows);     // N neither a multiple of 12 nor of 8
    CheckThreadSplit<1024, 203, uint16_t>(rows);
    CheckThreadSplit<517, 301, float>(rows);      // K % 8 = 5, K % 4 = 1
    CheckThreadSplit<517, 301, uint16_t>(rows);
  }
}

TEST(IsaMatmul, KernelsHeaderSelectsIsa) {
  EXPECT_EQ((&kernels::matmul_f32<64, 8>), (&isa::matmul_f32<64, 8>));
  EXPECT_EQ((&kernels::logits_f32<64, 8>), (&isa::logits_f32<64, 8>));
  EXPECT_EQ((&kernels::matmul_f16<64, 8>), (&isa::matmul_f16<64, 8>));
  EXPECT_EQ((&kernels::logits_f16<64, 8>), (&isa::logits_f16<64, 8>));
  EXPECT_EQ((&kernels::embed_f16<64>), (&generic::embed_f16<64>));
}

}  // namespace
}  // namespace saguaro::kernels::test
