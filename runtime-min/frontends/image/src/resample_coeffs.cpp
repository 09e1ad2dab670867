// Coefficient tables of Pillow's separable resampling (resample_coeffs.h).
#include "saguaro/image/resample_coeffs.h"

#include <algorithm>
#include <cmath>

namespace saguaro::image {

namespace {

double bilinear(double x) {
  x = std::fabs(x);
  return x < 1.0 ? 1.0 - x : 0.0;
}

/// Keys' cubic convolution with a = -0.5, written in Pillow's order of operations.
double bicubic(double x) {
  constexpr double a = -0.5;
  x = std::fabs(x);
  if (x < 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1;
  if (x < 2.0) return (((x - 5) * x + 8) * x - 4) * a;
  return 0.0;
}

}  // namespace

AxisCoeffs pillow_axis_coeffs(int in_size, int out_size, Resample filter) {
  double (*kernel)(double) = filter == Resample::Bilinear ? bilinear : bicubic;
  const double kernel_support = filter == Resample::Bilinear ? 1.0 : 2.0;
  const double scale = static_cast<double>(in_size) / out_size;
  const double filterscale = std::max(scale, 1.0);
  const double support = kernel_support * filterscale;

  AxisCoeffs c;
  c.taps = static_cast<int>(std::ceil(support)) * 2 + 1;
  c.first.resize(out_size);
  c.count.resize(out_size);
  c.weights.assign(static_cast<size_t>(out_size) * c.taps, 0);
  std::vector<double> w(c.taps);
  for (int i = 0; i < out_size; ++i) {
    const double center = (i + 0.5) * scale;
    // Truncating casts, as in Pillow; a negative start is clamped to 0 right after.
    const int lo = std::max(static_cast<int>(center - support + 0.5), 0);
    const int hi = std::min(static_cast<int>(center + support + 0.5), in_size);
    const int n = hi - lo;
    double sum = 0.0;
    for (int k = 0; k < n; ++k) sum += w[k] = kernel((k + lo - center + 0.5) * (1.0 / filterscale));
    int32_t* fixed = &c.weights[static_cast<size_t>(i) * c.taps];
    for (int k = 0; k < n; ++k) {
      const double v = (sum != 0.0 ? w[k] / sum : w[k]) * (1 << kPrecisionBits);
      fixed[k] = static_cast<int32_t>(v < 0 ? v - 0.5 : v + 0.5);
    }
    c.first[i] = lo;
    c.count[i] = n;
  }
  return c;
}

}  // namespace saguaro::image
