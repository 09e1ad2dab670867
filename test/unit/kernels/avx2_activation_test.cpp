// AVX2 gated activations against the generic ones (within 1e-5 of the output scale), and the vector exp/tanh
// they use against libm's expf/tanhf.
#include <cfloat>
#include <limits>

#include "avx2_test_util.h"
#include "saguaro/kernels/kernels.h"

namespace saguaro::kernels::test {
namespace {

template <int N, int Act>
void CheckGatedAct() {
  for (int32_t rows : {1, 3}) {
    for (float range : {1.0f, 8.0f, 100.0f}) {
      SCOPED_TRACE(testing::Message() << "N " << N << " Act " << Act << " rows " << rows << " range " << range);
      const size_t n = static_cast<size_t>(rows) * N;
      const auto gate = RandomFloats(n, 3 * N + rows, -range, range);
      const auto up = RandomFloats(n, 5 * N + rows, -2.0f, 2.0f);
      std::vector<float> want(n), got(n);
      generic::gated_act_f32<N, Act>(rows, gate.data(), up.data(), want.data());
      x86_avx2::gated_act_f32<N, Act>(rows, gate.data(), up.data(), got.data());
      ExpectNearGeneric(got.data(), want.data(), n);
      std::vector<float> inplace = gate;
      x86_avx2::gated_act_f32<N, Act>(rows, inplace.data(), up.data(), inplace.data());
      ExpectBitEqual(inplace.data(), got.data(), n);
    }
  }
}

template <int Act>
void CheckGatedActShapes() {
  CheckGatedAct<1, Act>();
  CheckGatedAct<7, Act>();
  CheckGatedAct<8, Act>();
  CheckGatedAct<13, Act>();
  CheckGatedAct<172, Act>();
  CheckGatedAct<1000, Act>();
}

TEST(Avx2GatedAct, Silu) {
  SAGUARO_REQUIRE_AVX2();
  CheckGatedActShapes<0>();
}

TEST(Avx2GatedAct, GeluTanh) {
  SAGUARO_REQUIRE_AVX2();
  CheckGatedActShapes<1>();
}

/// f applied to x broadcast to all lanes; the lanes must agree.
template <class F>
float Lane0(F f, float x) {
  alignas(32) float out[8];
  _mm256_store_ps(out, f(_mm256_set1_ps(x)));
  return out[0];
}

TEST(Avx2VectorMath, ExpMatchesExpf) {
  SAGUARO_REQUIRE_AVX2();
  const auto exp8 = [](__m256 v) { return x86_avx2::detail::exp_ps(v); };
  for (float x = -110.0f; x < 89.0f; x += 0.00731f) {
    const float got = Lane0(exp8, x), want = expf(x);
    if (want < FLT_MIN) {
      EXPECT_LE(got, FLT_MIN) << x;  // expf subnormal or 0: exp_ps gives 0
    } else if (std::isinf(want)) {
      EXPECT_EQ(got, want) << x;
    } else {
      ASSERT_LE(std::fabs(got - want), 2.4e-7f * want) << x;
    }
  }
  EXPECT_EQ(Lane0(exp8, -std::numeric_limits<float>::infinity()), 0.0f);
  EXPECT_EQ(Lane0(exp8, std::numeric_limits<float>::infinity()), std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(Lane0(exp8, std::numeric_limits<float>::quiet_NaN())));
}

TEST(Avx2VectorMath, TanhMatchesTanhf) {
  SAGUARO_REQUIRE_AVX2();
  const auto tanh8 = [](__m256 v) { return x86_avx2::detail::tanh_ps(v); };
  for (float x = -12.0f; x < 12.0f; x += 0.000731f) {
    const float got = Lane0(tanh8, x), want = tanhf(x);
    ASSERT_LE(std::fabs(got - want), 3.6e-7f * std::fabs(want)) << x;
  }
  EXPECT_EQ(Lane0(tanh8, 50.0f), 1.0f);
  EXPECT_EQ(Lane0(tanh8, -std::numeric_limits<float>::infinity()), -1.0f);
  EXPECT_TRUE(std::isnan(Lane0(tanh8, std::numeric_limits<float>::quiet_NaN())));
}

TEST(Avx2GatedAct, KernelsHeaderSelectsAvx2) {
  EXPECT_EQ((&kernels::gated_act_f32<64, 0>), (&x86_avx2::gated_act_f32<64, 0>));
}

}  // namespace
}  // namespace saguaro::kernels::test
