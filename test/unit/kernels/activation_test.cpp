// gated_act_f32 (SiLU, GELU-tanh) against double-precision formulas.
#include "saguaro/kernels/kernels.h"
#include "test_util.h"

namespace saguaro::kernels::test {
namespace {

/// act(g)·u in double; act 0 = SiLU, 1 = GELU-tanh.
double RefGated(int act, double g, double u) {
  if (act == 0) return g / (1.0 + std::exp(-g)) * u;
  const double k = std::sqrt(2.0 / M_PI);
  return 0.5 * g * (1.0 + std::tanh(k * (g + 0.044715 * g * g * g))) * u;
}

/// Checks gated_act_f32<N, Act> on `rows` rows, out of place and aliasing gate.
template <int N, int Act>
void CheckGated(int32_t rows) {
  auto gate = RandomFloats(rows * N, 130 + N, -6.0f, 6.0f);
  const auto up = RandomFloats(rows * N, 140 + N, -2.0f, 2.0f);
  std::vector<double> want(rows * N);
  for (int i = 0; i < rows * N; ++i) want[i] = RefGated(Act, gate[i], up[i]);
  std::vector<float> out(rows * N);
  gated_act_f32<N, Act>(rows, gate.data(), up.data(), out.data());
  ExpectClose(out, want);
  gated_act_f32<N, Act>(rows, gate.data(), up.data(), gate.data());
  ExpectClose(gate, want);
}

TEST(GatedActF32, Silu) {
  CheckGated<1, 0>(1);
  CheckGated<172, 0>(4);
}

TEST(GatedActF32, GeluTanh) {
  CheckGated<7, 1>(1);
  CheckGated<256, 1>(3);
}

}  // namespace
}  // namespace saguaro::kernels::test
