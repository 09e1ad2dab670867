// ISA matmul_f32/logits_f32 against the generic ones (within 1e-5 of the output scale), independent of the
// row count.
#include "isa_test_util.h"

namespace saguaro::kernels::test {
namespace {

template <int K, int N>
void CheckMatmul() {
  const auto w = RandomFloats(static_cast<size_t>(N) * K, 20 + N + K);
  for (int32_t rows = 1; rows <= 9; ++rows) {
    SCOPED_TRACE(testing::Message() << "K " << K << " N " << N << " rows " << rows);
    const auto x = RandomFloats(static_cast<size_t>(rows) * K, 10 + K + rows, -2.0f, 2.0f);
    std::vector<float> want(static_cast<size_t>(rows) * N), got(want.size(), -9.0f);
    generic::matmul_f32<K, N>(rows, x.data(), w.data(), want.data());
    isa::matmul_f32<K, N>(rows, x.data(), w.data(), got.data());
    ExpectNearGeneric(got.data(), want.data(), want.size());

    for (int32_t r = 0; r < rows; ++r) {
      std::vector<float> one(N);
      isa::matmul_f32<K, N>(1, x.data() + static_cast<size_t>(r) * K, w.data(), one.data());
      ExpectBitEqual(one.data(), got.data() + static_cast<size_t>(r) * N, N);
    }

    std::vector<float> all(want.size(), -9.0f);
    isa::logits_f32<K, N>(rows, true, x.data(), w.data(), all.data());
    ExpectBitEqual(all.data(), got.data(), got.size());
    std::vector<float> last(static_cast<size_t>(N) + 1, -9.0f);
    isa::logits_f32<K, N>(rows, false, x.data(), w.data(), last.data());
    ExpectBitEqual(last.data(), got.data() + static_cast<size_t>(rows - 1) * N, N);
    EXPECT_EQ(last[N], -9.0f) << "wrote past N";
  }
}

TEST(IsaMatmul, Shapes) {
  SAGUARO_REQUIRE_ISA();
  CheckMatmul<1, 1>();
  CheckMatmul<3, 7>();
  CheckMatmul<8, 3>();
  CheckMatmul<13, 17>();
  CheckMatmul<64, 172>();
  CheckMatmul<172, 64>();
  CheckMatmul<256, 96>();
  CheckMatmul<300, 41>();
  CheckMatmul<1024, 50>();
  CheckMatmul<3000, 13>();
}

TEST(IsaMatmul, KernelsHeaderSelectsIsa) {
  EXPECT_EQ((&kernels::matmul_f32<64, 8>), (&isa::matmul_f32<64, 8>));
  EXPECT_EQ((&kernels::logits_f32<64, 8>), (&isa::logits_f32<64, 8>));
}

}  // namespace
}  // namespace saguaro::kernels::test
