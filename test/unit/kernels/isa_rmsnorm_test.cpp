// ISA RMSNorm variants against the generic ones (within 1e-5 of the output scale; the residual update is the
// same float addition, so it is compared bit for bit).
#include "isa_test_util.h"

namespace saguaro::kernels::test {
namespace {

template <int D, bool AddOne>
void CheckRmsNorm() {
  for (int32_t rows : {1, 2, 5}) {
    SCOPED_TRACE(testing::Message() << "D " << D << " AddOne " << AddOne << " rows " << rows);
    const auto x = RandomFloats(static_cast<size_t>(rows) * D, 50 + D + rows, -3.0f, 3.0f);
    const auto w = RandomFloats(D, 60 + D, AddOne ? -0.5f : 0.5f, AddOne ? 0.5f : 1.5f);
    std::vector<float> want(x.size()), got(x.size());
    generic::rmsnorm_f32<D, AddOne>(rows, x.data(), w.data(), 1e-6f, want.data());
    isa::rmsnorm_f32<D, AddOne>(rows, x.data(), w.data(), 1e-6f, got.data());
    ExpectNearGeneric(got.data(), want.data(), want.size());
    std::vector<float> inplace = x;
    isa::rmsnorm_f32<D, AddOne>(rows, inplace.data(), w.data(), 1e-6f, inplace.data());
    ExpectBitEqual(inplace.data(), got.data(), got.size());

    // add_rmsnorm: resid += delta, out = rmsnorm(resid).
    const auto delta = RandomFloats(x.size(), 70 + D + rows);
    std::vector<float> resid_want = x, resid_got = x, out_want(x.size()), out_got(x.size());
    generic::add_rmsnorm_f32<D, AddOne>(rows, resid_want.data(), delta.data(), w.data(), 1e-5f, out_want.data());
    isa::add_rmsnorm_f32<D, AddOne>(rows, resid_got.data(), delta.data(), w.data(), 1e-5f, out_got.data());
    ExpectBitEqual(resid_got.data(), resid_want.data(), x.size());
    ExpectNearGeneric(out_got.data(), out_want.data(), x.size());
  }
}

TEST(IsaRmsNorm, Shapes) {
  SAGUARO_REQUIRE_ISA();
  CheckRmsNorm<1, false>();
  CheckRmsNorm<5, true>();
  CheckRmsNorm<8, false>();
  CheckRmsNorm<13, false>();
  CheckRmsNorm<16, true>();
  CheckRmsNorm<24, false>();
  CheckRmsNorm<64, false>();
  CheckRmsNorm<96, true>();
  CheckRmsNorm<172, false>();
  CheckRmsNorm<1000, true>();
  CheckRmsNorm<2048, false>();
}

template <int H, int HD, bool AddOne>
void CheckHeadRmsNorm() {
  for (int32_t rows : {1, 3}) {
    SCOPED_TRACE(testing::Message() << "H " << H << " HD " << HD << " AddOne " << AddOne << " rows " << rows);
    const auto x = RandomFloats(static_cast<size_t>(rows) * H * HD, 100 + H * HD + rows, -2.0f, 2.0f);
    const auto w = RandomFloats(HD, 110 + HD);
    std::vector<float> want = x, got = x;
    generic::head_rmsnorm_f32<H, HD, AddOne>(rows, want.data(), w.data(), 1e-6f);
    isa::head_rmsnorm_f32<H, HD, AddOne>(rows, got.data(), w.data(), 1e-6f);
    ExpectNearGeneric(got.data(), want.data(), want.size());
  }
}

TEST(IsaHeadRmsNorm, Shapes) {
  SAGUARO_REQUIRE_ISA();
  CheckHeadRmsNorm<1, 8, false>();
  CheckHeadRmsNorm<4, 16, false>();
  CheckHeadRmsNorm<3, 12, true>();
  CheckHeadRmsNorm<2, 64, true>();
  CheckHeadRmsNorm<8, 128, false>();
  CheckHeadRmsNorm<4, 256, true>();
}

TEST(IsaRmsNorm, KernelsHeaderSelectsIsa) {
  EXPECT_EQ((&kernels::rmsnorm_f32<64, false>), (&isa::rmsnorm_f32<64, false>));
  EXPECT_EQ((&kernels::add_rmsnorm_f32<64, false>), (&isa::add_rmsnorm_f32<64, false>));
  EXPECT_EQ((&kernels::head_rmsnorm_f32<2, 64, false>), (&isa::head_rmsnorm_f32<2, 64, false>));
}

}  // namespace
}  // namespace saguaro::kernels::test
