// ISA matmul_f32/f16 and logits_f32/f16 against the generic ones (within 1e-5 of the output scale), independent
// of the row count, of the column tiling and of the thread split; binary16 weights converted exactly; weights
// stored in three-row panels (dense_layout.h) give the row-major product bit for bit.
#include "isa_test_util.h"

namespace saguaro::kernels::test {
namespace {

// The generic and ISA kernels of each weight type, chosen by the weights' element type (float32, binary16 bits),
// for weights stored in `Layout` (dense_layout.h; row-major by default).
template <int K, int N, int Layout = dense::kRowMajor>
void GenericMatmul(int32_t rows, const float* x, const float* w, float* y) {
  generic::matmul_f32<K, N, Layout>(rows, x, w, y);
}
template <int K, int N, int Layout = dense::kRowMajor>
void GenericMatmul(int32_t rows, const float* x, const uint16_t* w, float* y) {
  generic::matmul_f16<K, N, Layout>(rows, x, w, y);
}
template <int K, int N, int Layout = dense::kRowMajor>
void IsaMatmul(int32_t rows, const float* x, const float* w, float* y, const Parallel* par = nullptr) {
  isa::matmul_f32<K, N, Layout>(rows, x, w, y, par);
}
template <int K, int N, int Layout = dense::kRowMajor>
void IsaMatmul(int32_t rows, const float* x, const uint16_t* w, float* y, const Parallel* par = nullptr) {
  isa::matmul_f16<K, N, Layout>(rows, x, w, y, par);
}
template <int K, int N, int Layout = dense::kRowMajor>
void IsaLogits(int32_t rows, bool all, const float* x, const float* w, float* y) {
  isa::logits_f32<K, N, Layout>(rows, all, x, w, y);
}
template <int K, int N, int Layout = dense::kRowMajor>
void IsaLogits(int32_t rows, bool all, const float* x, const uint16_t* w, float* y) {
  isa::logits_f16<K, N, Layout>(rows, all, x, w, y);
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

#if defined(SAGUARO_TEST_X86_AVX2)
/// Weights stored in dense::kPanel3 (kern-pack-weights picks it for x86 targets): for 1..9 rows, matmul and logits
/// equal the row-major ISA product bit for bit (the same sums, read from other addresses), also split over 2, 3
/// and 5 threads; generic in that layout equals generic row-major bit for bit.
template <int K, int N, class Wt>
void CheckPanelLayout() {
  static_assert(dense::panel_fits(K));
  const auto w = RandomWeights<Wt>(static_cast<size_t>(N) * K, 50 + N + K);
  std::vector<Wt> packed(w.size());
  dense::pack(dense::kPanel3, N, K, sizeof(Wt), w.data(), packed.data());
  for (int32_t rows = 1; rows <= 9; ++rows) {
    SCOPED_TRACE(testing::Message() << "K " << K << " N " << N << " rows " << rows << " weight bytes "
                                    << sizeof(Wt));
    const auto x = RandomFloats(static_cast<size_t>(rows) * K, 60 + K + rows, -2.0f, 2.0f);
    std::vector<float> want(static_cast<size_t>(rows) * N), got(want.size(), -9.0f);
    IsaMatmul<K, N>(rows, x.data(), w.data(), want.data());
    IsaMatmul<K, N, dense::kPanel3>(rows, x.data(), packed.data(), got.data());
    ExpectBitEqual(got.data(), want.data(), want.size());
    if (int64_t{rows} * N * K >= kMinParallelWork && N > 12) {  // else one thread runs it all
      ExpectThreadSplitBitIdentical(want.size(), [&](float* y, const Parallel* par) {
        IsaMatmul<K, N, dense::kPanel3>(rows, x.data(), packed.data(), y, par);
      });
    }

    std::vector<float> last(static_cast<size_t>(N) + 1, -9.0f);
    IsaLogits<K, N, dense::kPanel3>(rows, false, x.data(), packed.data(), last.data());
    ExpectBitEqual(last.data(), want.data() + static_cast<size_t>(rows - 1) * N, N);
    EXPECT_EQ(last[N], -9.0f) << "wrote past N";

    std::vector<float> gen_row(want.size()), gen_panel(want.size());
    GenericMatmul<K, N>(rows, x.data(), w.data(), gen_row.data());
    GenericMatmul<K, N, dense::kPanel3>(rows, x.data(), packed.data(), gen_panel.data());
    ExpectBitEqual(gen_panel.data(), gen_row.data(), want.size());
  }
}

TEST(IsaMatmul, PanelLayoutBitIdentical) {
  SAGUARO_REQUIRE_ISA();
  CheckPanelLayout<8, 1, uint16_t>();      // no whole panel: every row row-major
  CheckPanelLayout<8, 3, uint16_t>();      // one panel
  CheckPanelLayout<64, 172, uint16_t>();   // 57 panels and one row-major row
  CheckPanelLayout<256, 203, uint16_t>();  // 67 panels, two row-major rows; thread ranges of 12 columns
  CheckPanelLayout<1024, 50, uint16_t>();
  CheckPanelLayout<64, 172, float>();
  CheckPanelLayout<1024, 50, float>();
}
#endif  // SAGUARO_TEST_X86_AVX2

TEST(IsaMatmul, KernelsHeaderSelectsIsa) {
  EXPECT_EQ((&kernels::matmul_f32<64, 8>), (&isa::matmul_f32<64, 8>));
  EXPECT_EQ((&kernels::logits_f32<64, 8>), (&isa::logits_f32<64, 8>));
  EXPECT_EQ((&kernels::matmul_f16<64, 8>), (&isa::matmul_f16<64, 8>));
  EXPECT_EQ((&kernels::logits_f16<64, 8>), (&isa::logits_f16<64, 8>));
  EXPECT_EQ((&kernels::matmul_f16<64, 8, dense::kPanel3>), (&isa::matmul_f16<64, 8, dense::kPanel3>));
  EXPECT_EQ((&kernels::embed_f16<64>), (&generic::embed_f16<64>));
}

}  // namespace
}  // namespace saguaro::kernels::test
