// add_f32 and softcap_f32 against double-precision formulas.
#include "saguaro/kernels/kernels.h"
#include "test_util.h"

namespace saguaro::kernels::test {
namespace {

TEST(AddF32, Rows) {
  auto acc = RandomFloats(3 * 40, 150);
  const auto x = RandomFloats(3 * 40, 151);
  std::vector<double> want(acc.size());
  for (size_t i = 0; i < acc.size(); ++i) want[i] = static_cast<double>(acc[i]) + x[i];
  add_f32<40>(3, acc.data(), x.data());
  ExpectClose(acc, want);
}

/// Checks softcap_f32<N> with cap on values spanning ±4·cap.
template <int N>
void CheckSoftcap(int32_t rows, float cap) {
  auto x = RandomFloats(rows * N, 160 + N, -4.0f * cap, 4.0f * cap);
  std::vector<double> want(x.size());
  for (size_t i = 0; i < x.size(); ++i) want[i] = cap * std::tanh(x[i] / static_cast<double>(cap));
  softcap_f32<N>(rows, x.data(), cap);
  ExpectClose(x, want);
}

TEST(SoftcapF32, Caps) {
  CheckSoftcap<1>(1, 30.0f);
  CheckSoftcap<512>(2, 30.0f);
  CheckSoftcap<64>(3, 50.0f);
}

}  // namespace
}  // namespace saguaro::kernels::test
