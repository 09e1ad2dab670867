// The generic products' row loop: activation rows four at a time (each weight value read once for four rows), then
// one at a time.
#pragma once

#include <cstdint>
#include <type_traits>

namespace saguaro::kernels::generic {

/// Output column n of y[rows][N] for the rows of x (ldx floats apart): for each block of R rows (R = 4, then 1 for
/// the rest), dot(std::integral_constant<int, R>{}, xs, a) fills a[q] with the sum of row xs[q] (a starts at 0),
/// which becomes y[r + q][n]. The rows' sums are independent, so blocking changes no result.
template <int N, class Dot>
inline void rows_by_four(int32_t rows, const float* x, int64_t ldx, int64_t n, float* y, Dot&& dot) {
  const auto block = [&](int32_t r, auto kR) {
    constexpr int R = decltype(kR)::value;
    const float* xs[R];
    float a[R];
    #pragma GCC unroll 4
    for (int q = 0; q < R; ++q) {
      xs[q] = x + static_cast<int64_t>(r + q) * ldx;
      a[q] = 0.0f;
    }
    dot(kR, xs, a);
    #pragma GCC unroll 4
    for (int q = 0; q < R; ++q) y[static_cast<int64_t>(r + q) * N + n] = a[q];
  };
  int32_t r = 0;
  for (; r + 4 <= rows; r += 4) block(r, std::integral_constant<int, 4>{});
  for (; r < rows; ++r) block(r, std::integral_constant<int, 1>{});
}

}  // namespace saguaro::kernels::generic
