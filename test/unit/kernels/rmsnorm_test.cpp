// rmsnorm_f32, add_rmsnorm_f32 and head_rmsnorm_f32 against double-precision RMSNorm.
#include "saguaro/kernels/kernels.h"
#include "test_util.h"

namespace saguaro::kernels::test {
namespace {

/// RMSNorm of `count` vectors of length d in double; weight is 1+w when add_one.
std::vector<double> RefRmsNorm(const std::vector<float>& x, const std::vector<float>& w, int count, int d,
                               double eps, bool add_one) {
  std::vector<double> out(x.size());
  for (int v = 0; v < count; ++v) {
    double ss = 0.0;
    for (int i = 0; i < d; ++i) ss += static_cast<double>(x[v * d + i]) * x[v * d + i];
    const double inv = 1.0 / std::sqrt(ss / d + eps);
    for (int i = 0; i < d; ++i) out[v * d + i] = (add_one ? 1.0 + w[i] : w[i]) * inv * x[v * d + i];
  }
  return out;
}

/// Checks rmsnorm_f32<D, AddOne> out of place and in place.
template <int D, bool AddOne>
void CheckRmsNorm(int32_t rows, float eps) {
  const auto x = RandomFloats(rows * D, 50 + D, -3.0f, 3.0f);
  const auto w = RandomFloats(D, 60 + D, AddOne ? -0.5f : 0.5f, AddOne ? 0.5f : 1.5f);
  const auto want = RefRmsNorm(x, w, rows, D, eps, AddOne);
  std::vector<float> out(rows * D);
  rmsnorm_f32<D, AddOne>(rows, x.data(), w.data(), eps, out.data());
  ExpectClose(out, want);
  std::vector<float> inplace = x;
  rmsnorm_f32<D, AddOne>(rows, inplace.data(), w.data(), eps, inplace.data());
  ExpectClose(inplace, want);
}

TEST(RmsNormF32, Shapes) {
  CheckRmsNorm<8, false>(1, 1e-5f);
  CheckRmsNorm<64, false>(5, 1e-5f);
  CheckRmsNorm<64, true>(1, 1e-6f);
  CheckRmsNorm<96, true>(3, 1e-6f);
}

/// Checks add_rmsnorm_f32<D, AddOne>: residual update and normalised output.
template <int D, bool AddOne>
void CheckAddRmsNorm(int32_t rows) {
  auto resid = RandomFloats(rows * D, 70 + D);
  const auto delta = RandomFloats(rows * D, 80 + D);
  const auto w = RandomFloats(D, 90 + D);
  std::vector<float> sum(rows * D);
  std::vector<double> sum_d(rows * D);
  for (int i = 0; i < rows * D; ++i) {
    sum[i] = resid[i] + delta[i];
    sum_d[i] = sum[i];
  }
  const auto want = RefRmsNorm(sum, w, rows, D, 1e-5, AddOne);
  std::vector<float> out(rows * D);
  add_rmsnorm_f32<D, AddOne>(rows, resid.data(), delta.data(), w.data(), 1e-5f, out.data());
  ExpectClose(resid, sum_d);
  ExpectClose(out, want);
}

TEST(AddRmsNormF32, Shapes) {
  CheckAddRmsNorm<16, false>(1);
  CheckAddRmsNorm<64, false>(4);
  CheckAddRmsNorm<32, true>(3);
}

/// Checks head_rmsnorm_f32<H, HD, AddOne>: every head normalised with the shared weight.
template <int H, int HD, bool AddOne>
void CheckHeadRmsNorm(int32_t rows) {
  auto x = RandomFloats(rows * H * HD, 100 + H * HD, -2.0f, 2.0f);
  const auto w = RandomFloats(HD, 110 + HD);
  const auto want = RefRmsNorm(x, w, rows * H, HD, 1e-6, AddOne);
  head_rmsnorm_f32<H, HD, AddOne>(rows, x.data(), w.data(), 1e-6f);
  ExpectClose(x, want);
}

TEST(HeadRmsNormF32, Shapes) {
  CheckHeadRmsNorm<1, 8, false>(1);
  CheckHeadRmsNorm<4, 16, false>(3);
  CheckHeadRmsNorm<2, 32, true>(5);
}

}  // namespace
}  // namespace saguaro::kernels::test
