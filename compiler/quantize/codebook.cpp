// Lloyd-Max codebooks for CQ (docs/quantization.md, "Codebook").
//
// Density of one coordinate x of a uniform unit vector in R^g: f(x) ∝ (1 − x²)^((g−3)/2) on [−1, 1].
// With x = sin φ, f(x) dx ∝ cos^(g−2) φ dφ, an entire function of φ, so cell masses are integrated in φ by
// composite 20-point Gauss–Legendre to ~1e-16 relative; cell first moments are closed form:
// ∫_a^b x f(x) dx ∝ ((1−a²)^((g−1)/2) − (1−b²)^((g−1)/2)) / (g−1).
// Lloyd-Max: centroids start at the quantiles (q + ½)/2^bits, then thresholds = midpoints, centroids =
// conditional means, symmetrized each step (c_q = −c_{n−1−q} exactly), until no centroid moves by ≥ 1e-12.
#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

#include "compiler/quantize/quantize.h"

namespace saguaro::quant {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr int kGaussPoints = 20;

struct GaussLegendre {
  double x[kGaussPoints], w[kGaussPoints];
  GaussLegendre() {
    // Newton on P_n from the Chebyshev guesses; deterministic.
    const int n = kGaussPoints;
    for (int i = 0; i < n; ++i) {
      double z = std::cos(kPi * (i + 0.75) / (n + 0.5));
      double dp = 0.0;
      for (int it = 0; it < 100; ++it) {
        double p0 = 1.0, p1 = z;
        for (int k = 2; k <= n; ++k) {
          const double p2 = ((2.0 * k - 1.0) * z * p1 - (k - 1.0) * p0) / k;
          p0 = p1;
          p1 = p2;
        }
        dp = n * (z * p1 - p0) / (z * z - 1.0);
        const double dz = p1 / dp;
        z -= dz;
        if (std::fabs(dz) < 1e-16) break;
      }
      x[i] = z;
      w[i] = 2.0 / ((1.0 - z * z) * dp * dp);
    }
  }
};

const GaussLegendre& gauss() {
  static const GaussLegendre gl;
  return gl;
}

class Density {
 public:
  explicit Density(int g) : g_(g), power_(g - 2), step_(std::min(0.05, 0.5 / std::sqrt(double(g)))) {}

  /// ∫_{asin a}^{asin b} cos^(g−2) φ dφ (unnormalized mass of [a, b]).
  double mass(double a, double b) const {
    const double pa = std::asin(a), pb = std::asin(b);
    if (pb <= pa) return 0.0;
    const int pieces = std::max(1, static_cast<int>(std::ceil((pb - pa) / step_)));
    const double h = (pb - pa) / pieces;
    const GaussLegendre& gl = gauss();
    double total = 0.0;
    for (int p = 0; p < pieces; ++p) {
      const double mid = pa + (p + 0.5) * h;
      double s = 0.0;
      for (int i = 0; i < kGaussPoints; ++i) s += gl.w[i] * std::pow(std::cos(mid + 0.5 * h * gl.x[i]), power_);
      total += 0.5 * h * s;
    }
    return total;
  }

  /// ∫_a^b x (1 − x²)^((g−3)/2) dx in the same normalization as mass().
  double moment(double a, double b) const {
    const double e = 0.5 * (g_ - 1);
    return (std::pow(std::max(0.0, 1.0 - a * a), e) - std::pow(std::max(0.0, 1.0 - b * b), e)) / (g_ - 1);
  }

 private:
  int g_, power_;
  double step_;
};

std::vector<double> lloyd_max(int g, int bits) {
  const int n = 1 << bits;
  const Density d(g);
  const double total = d.mass(-1.0, 1.0);
  // Start: centroid q at the (q + ½)/n quantile, found by bisection on the CDF.
  std::vector<double> c(n);
  for (int q = 0; q < n; ++q) {
    const double target = (q + 0.5) / n * total;
    double lo = -1.0, hi = 1.0;
    for (int it = 0; it < 200 && hi - lo > 1e-15; ++it) {
      const double mid = 0.5 * (lo + hi);
      (d.mass(-1.0, mid) < target ? lo : hi) = mid;
    }
    c[q] = 0.5 * (lo + hi);
  }
  std::vector<double> t(n + 1), next(n);
  for (int it = 0; it < 1000000; ++it) {
    t[0] = -1.0;
    t[n] = 1.0;
    for (int q = 1; q < n; ++q) t[q] = 0.5 * (c[q - 1] + c[q]);
    for (int q = 0; q < n; ++q) {
      const double m = d.mass(t[q], t[q + 1]);
      next[q] = m > 0.0 ? d.moment(t[q], t[q + 1]) / m : 0.5 * (t[q] + t[q + 1]);
    }
    double moved = 0.0;
    for (int q = 0; q < n; ++q) {
      const double v = 0.5 * (next[q] - next[n - 1 - q]);  // exact antisymmetry
      moved = std::max(moved, std::fabs(v - c[q]));
      c[q] = v;
    }
    if (moved < 1e-12) return c;
  }
  throw std::runtime_error("codebook: Lloyd-Max did not converge for g=" + std::to_string(g) +
                           " bits=" + std::to_string(bits));
}

void check_args(int g, int bits) {
  if (g < 3 || g > (1 << 20))
    throw std::invalid_argument("codebook: group size " + std::to_string(g) + " outside [3, 2^20]");
  if (bits < 1 || bits > 8) throw std::invalid_argument("codebook: bits " + std::to_string(bits) + " outside [1, 8]");
}

}  // namespace

std::vector<double> codebook_f64(int g, int bits) {
  check_args(g, bits);
  return lloyd_max(g, bits);
}

const std::vector<float>& codebook(int g, int bits) {
  check_args(g, bits);
  static std::mutex mu;
  static std::map<std::pair<int, int>, std::vector<float>> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find({g, bits});
  if (it != cache.end()) return it->second;
  const std::vector<double> c = lloyd_max(g, bits);
  std::vector<float> f(c.begin(), c.end());
  return cache.emplace(std::make_pair(g, bits), std::move(f)).first->second;
}

}  // namespace saguaro::quant
