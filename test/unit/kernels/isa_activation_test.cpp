// ISA gated activations against the generic ones (within 1e-5 of the output scale), and the vector exp/tanh
// they use against libm's expf/tanhf.
#include <cfloat>
#include <limits>

#include "isa_test_util.h"

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
      isa::gated_act_f32<N, Act>(rows, gate.data(), up.data(), got.data());
      ExpectNearGeneric(got.data(), want.data(), n);
      std::vector<float> inplace = gate;
      isa::gated_act_f32<N, Act>(rows, inplace.data(), up.data(), inplace.data());
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

TEST(IsaGatedAct, Silu) {
  SAGUARO_REQUIRE_ISA();
  CheckGatedActShapes<0>();
}

TEST(IsaGatedAct, GeluTanh) {
  SAGUARO_REQUIRE_ISA();
  CheckGatedActShapes<1>();
}

/// f applied to x broadcast to all lanes; the lanes must agree.
#if defined(SAGUARO_TEST_X86_AVX2)
using Vec = __m256;

template <class F>
float Lane0(F f, float x) {
  alignas(32) float out[8];
  _mm256_store_ps(out, f(_mm256_set1_ps(x)));
  return out[0];
}
#elif defined(SAGUARO_TEST_ARM64_NEON)
using Vec = float32x4_t;

template <class F>
float Lane0(F f, float x) {
  float out[4];
  vst1q_f32(out, f(vdupq_n_f32(x)));
  EXPECT_TRUE(std::memcmp(out, out + 1, sizeof(float)) == 0 || std::isnan(out[0])) << x;
  return out[0];
}
#endif

TEST(IsaVectorMath, ExpMatchesExpf) {
  SAGUARO_REQUIRE_ISA();
  const auto exp_v = [](Vec v) { return isa::detail::exp_ps(v); };
  for (float x = -110.0f; x < 89.0f; x += 0.00731f) {
    const float got = Lane0(exp_v, x), want = expf(x);
    if (want < FLT_MIN) {
      EXPECT_LE(got, FLT_MIN) << x;  // expf subnormal or 0: exp_ps gives 0
    } else if (std::isinf(want)) {
      EXPECT_EQ(got, want) << x;
    } else {
      ASSERT_LE(std::fabs(got - want), 2.4e-7f * want) << x;
    }
  }
  EXPECT_EQ(Lane0(exp_v, -std::numeric_limits<float>::infinity()), 0.0f);
  EXPECT_EQ(Lane0(exp_v, std::numeric_limits<float>::infinity()), std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(Lane0(exp_v, std::numeric_limits<float>::quiet_NaN())));
}

TEST(IsaVectorMath, TanhMatchesTanhf) {
  SAGUARO_REQUIRE_ISA();
  const auto tanh_v = [](Vec v) { return isa::detail::tanh_ps(v); };
  for (float x = -12.0f; x < 12.0f; x += 0.000731f) {
    const float got = Lane0(tanh_v, x), want = tanhf(x);
    ASSERT_LE(std::fabs(got - want), 3.6e-7f * std::fabs(want)) << x;
  }
  EXPECT_EQ(Lane0(tanh_v, 50.0f), 1.0f);
  EXPECT_EQ(Lane0(tanh_v, -std::numeric_limits<float>::infinity()), -1.0f);
  EXPECT_TRUE(std::isnan(Lane0(tanh_v, std::numeric_limits<float>::quiet_NaN())));
}

TEST(IsaGatedAct, KernelsHeaderSelectsIsa) {
  EXPECT_EQ((&kernels::gated_act_f32<64, 0>), (&isa::gated_act_f32<64, 0>));
}

}  // namespace
}  // namespace saguaro::kernels::test
