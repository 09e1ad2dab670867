// Tests of compiler/quantize: Lloyd-Max codebooks, the CQ stored format (docs/quantization.md), RTN and GPTQ.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "compiler/quantize/quantize.h"
#include "saguaro/kernels/cq_format.h"

namespace q = saguaro::quant;
namespace cq = saguaro::kernels::cq;

namespace {

std::vector<float> randn(int64_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, scale);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = d(rng);
  return v;
}

double rel_err(const std::vector<float>& a, const std::vector<float>& b) {
  double num = 0.0, den = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    num += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
    den += double(a[i]) * a[i];
  }
  return num / den;
}

/// R_g v in double from the spec: (1/√g) H_g (s ⊙ v[π]) with an explicit Sylvester matrix (not the FWHT).
std::vector<double> rotate_ref(const std::vector<double>& v, int g) {
  const cq::Rotation rot = cq::make_rotation(g);
  std::vector<double> x(g), y(g, 0.0);
  for (int i = 0; i < g; ++i) x[i] = rot.sign[i] * v[rot.perm[i]];
  for (int r = 0; r < g; ++r)
    for (int c = 0; c < g; ++c) y[r] += (__builtin_popcount(r & c) & 1 ? -1.0 : 1.0) * x[c];
  for (auto& e : y) e /= std::sqrt(double(g));
  return y;
}

// Gaussian Lloyd-Max mean squared error per unit variance (Max 1960): 1, 2, 3, 4 bits.
constexpr double kGaussDistortion[5] = {0, 0.3634, 0.1175, 0.03454, 0.009497};

}  // namespace

// ---------------------------------------------------------------------------------------------- codebook

TEST(Codebook, SymmetricSortedAndSized) {
  for (int g : {8, 16, 32, 64, 128})
    for (int bits = 1; bits <= 4; ++bits) {
      const auto& c = q::codebook(g, bits);
      ASSERT_EQ(c.size(), size_t(1) << bits);
      for (size_t i = 0; i < c.size(); ++i) {
        EXPECT_EQ(c[i], -c[c.size() - 1 - i]) << "g=" << g << " bits=" << bits;
        if (i) {
          EXPECT_LT(c[i - 1], c[i]);
        }
        EXPECT_GT(c[i], -1.0f);
        EXPECT_LT(c[i], 1.0f);
      }
    }
}

TEST(Codebook, OneBitIsTheExactHalfMean) {
  // E[x | x > 0] for one coordinate of a uniform unit vector in R^g = Γ(g/2) / (√π Γ((g+1)/2)).
  for (int g : {8, 16, 32, 64, 128, 1024}) {
    const double exact = std::exp(std::lgamma(g / 2.0) - std::lgamma((g + 1) / 2.0)) / std::sqrt(M_PI);
    EXPECT_NEAR(q::codebook_f64(g, 1)[1], exact, 1e-12) << g;
  }
}

TEST(Codebook, LargeGroupsApproachGaussianLloydMax) {
  for (int g : {128, 1024}) {
    const double s = std::sqrt(double(g));
    const auto c1 = q::codebook_f64(g, 1);
    EXPECT_NEAR(c1[1] / std::sqrt(2.0 / (M_PI * g)), 1.0, 0.01) << g;
    const auto c2 = q::codebook_f64(g, 2);
    EXPECT_NEAR(c2[2] * s / 0.4528, 1.0, 0.01) << g;
    EXPECT_NEAR(c2[3] * s / 1.510, 1.0, 0.01) << g;
    EXPECT_NEAR(-c2[1] * s / 0.4528, 1.0, 0.01) << g;
    EXPECT_NEAR(-c2[0] * s / 1.510, 1.0, 0.01) << g;
    const auto c3 = q::codebook_f64(g, 3);  // Max (1960): 0.2451 0.7560 1.344 2.152
    EXPECT_NEAR(c3[7] * s / 2.152, 1.0, 0.01) << g;
    EXPECT_NEAR(c3[4] * s / 0.2451, 1.0, 0.01) << g;
  }
}

TEST(Codebook, CentroidsAreConditionalMeansOfSampledCoordinates) {
  // Monte Carlo check of the Lloyd-Max fixed point with real unit vectors (independent of the density formula).
  const int g = 16;
  std::mt19937 rng(7);
  std::normal_distribution<double> nd;
  for (int bits : {2, 3}) {
    const auto c = q::codebook_f64(g, bits);
    const int n = 1 << bits;
    std::vector<double> sum(n, 0.0), cnt(n, 0.0);
    for (int s = 0; s < 40000; ++s) {
      std::vector<double> v(g);
      double ss = 0.0;
      for (auto& x : v) {
        x = nd(rng);
        ss += x * x;
      }
      for (double x : v) {
        x /= std::sqrt(ss);
        int best = 0;
        for (int k = 1; k < n; ++k)
          if (std::fabs(x - c[k]) < std::fabs(x - c[best])) best = k;
        sum[best] += x;
        cnt[best] += 1;
      }
    }
    for (int k = 0; k < n; ++k) EXPECT_NEAR(sum[k] / cnt[k], c[k], 0.004) << "bits=" << bits << " k=" << k;
  }
}

TEST(Codebook, DeterministicAndCached) {
  const auto a = q::codebook_f64(128, 4), b = q::codebook_f64(128, 4);
  ASSERT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(double)));
  EXPECT_EQ(&q::codebook(64, 3), &q::codebook(64, 3));
  const auto& f = q::codebook(128, 4);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(f[i], static_cast<float>(a[i]));
}

TEST(Codebook, RejectsBadArguments) {
  EXPECT_THROW(q::codebook(128, 0), std::invalid_argument);
  EXPECT_THROW(q::codebook(128, 9), std::invalid_argument);
  EXPECT_THROW(q::codebook(2, 2), std::invalid_argument);
}

// ---------------------------------------------------------------------------------------------- CQ format

TEST(Cq, ShapesAndBytesPerWeight) {
  struct Case { int64_t K; int g, G; };
  for (const Case c : {Case{128, 128, 1}, Case{172, 128, 2}, Case{48, 64, 1}, Case{5, 8, 1}, Case{1024, 128, 8},
                       Case{3072, 128, 24}, Case{256 + 8, 128, 3}}) {
    for (int bits = 1; bits <= 4; ++bits) {
      const int64_t N = 3;
      const auto w = randn(N * c.K, 1);
      const q::CqTensor t = q::quantize_cq(w.data(), N, c.K, bits);
      EXPECT_EQ(t.g, c.g);
      EXPECT_EQ(t.groups, c.G);
      EXPECT_EQ(t.bits, bits);
      EXPECT_EQ(int64_t(t.codes.size()), N * c.G * c.g * bits / 8);
      EXPECT_EQ(int64_t(t.norms.size()), N * c.G);
      const double bpw = (double(c.G) * c.g * bits / 8 + 2.0 * c.G) / double(c.K);
      EXPECT_DOUBLE_EQ(q::bytes_per_weight(N, c.K, bits), bpw);
      EXPECT_DOUBLE_EQ(q::bits_per_weight(N, c.K, bits), 8 * bpw);
    }
  }
  EXPECT_DOUBLE_EQ(q::bits_per_weight(10, 1024, 3), 3.125);
}

TEST(Cq, ErrorMatchesLloydMaxDistortionAndFallsWithBits) {
  const int64_t N = 256, K = 1024;
  const auto w = randn(N * K, 2, 0.02f);
  double prev = 1e9;
  for (int bits = 1; bits <= 4; ++bits) {
    const auto t = q::quantize_cq(w.data(), N, K, bits);
    const double e = rel_err(w, q::dequantize_cq(t, N, K));
    // Gaussian rows: each normalized group is uniform on the sphere, so the error is the codebook's distortion.
    EXPECT_NEAR(e / kGaussDistortion[bits], 1.0, 0.1) << bits;
    EXPECT_LT(e, prev);
    prev = e;
  }
}

TEST(Cq, CodesAreNearestCentroidsOfTheRotatedGroup) {
  const int64_t N = 4;
  for (int64_t K : {int64_t(172), int64_t(48), int64_t(256)}) {
    const auto w = randn(N * K, 3);
    for (int bits = 1; bits <= 4; ++bits) {
      const auto t = q::quantize_cq(w.data(), N, K, bits);
      const auto& c = q::codebook(t.g, bits);
      const int gb = t.g * bits / 8;
      int checked = 0;
      for (int64_t n = 0; n < N; ++n)
        for (int j = 0; j < t.groups; ++j) {
          std::vector<double> v(t.g, 0.0);
          double ss = 0.0;
          for (int i = 0; i < t.g; ++i) {
            const int64_t k = int64_t(j) * t.g + i;
            if (k < K) v[i] = w[n * K + k];
            ss += v[i] * v[i];
          }
          const double sigma = std::sqrt(ss);
          for (auto& x : v) x /= sigma;
          const auto r = rotate_ref(v, t.g);
          const uint8_t* grp = t.codes.data() + n * t.groups * gb + int64_t(j) * gb;
          double dot = 0, cc = 0;
          for (int i = 0; i < t.g; ++i) {
            const uint32_t code = cq::read_code(grp, i, bits);
            dot += r[i] * c[code];
            cc += double(c[code]) * c[code];
            ASSERT_LT(code, c.size());
            for (size_t k = 0; k < c.size(); ++k) {
              // Allow float-vs-double rotation rounding only when r sits on a decision boundary.
              if (std::fabs(r[i] - c[k]) < std::fabs(r[i] - c[code]) - 1e-6)
                ADD_FAILURE() << "K=" << K << " bits=" << bits << " n=" << n << " j=" << j << " i=" << i;
            }
            ++checked;
          }
          // The stored scale is the least-squares one, sigma * <r, c[code]> / |c[code]|^2.
          EXPECT_NEAR(cq::half_to_float(t.norms[n * t.groups + j]), sigma * dot / cc, 2e-3 * sigma * dot / cc);
        }
      EXPECT_GT(checked, 0);
    }
  }
}

TEST(Cq, ZeroRowsAndZeroGroups) {
  const int64_t N = 3, K = 300;  // g = 128, three groups, the last one padded
  auto w = randn(N * K, 4);
  for (int64_t k = 0; k < K; ++k) w[1 * K + k] = 0.0f;      // row 1 all zero
  for (int64_t k = 128; k < 256; ++k) w[2 * K + k] = 0.0f;  // row 2, group 1 zero
  for (int bits = 1; bits <= 4; ++bits) {
    const auto t = q::quantize_cq(w.data(), N, K, bits);
    const int gb = t.g * bits / 8;
    for (int j = 0; j < 3; ++j) {
      EXPECT_EQ(t.norms[1 * 3 + j], 0);
      for (int b = 0; b < gb; ++b) EXPECT_EQ(t.codes[(1 * 3 + j) * gb + b], 0);
    }
    EXPECT_EQ(t.norms[2 * 3 + 1], 0);
    for (int b = 0; b < gb; ++b) EXPECT_EQ(t.codes[(2 * 3 + 1) * gb + b], 0);
    const auto d = q::dequantize_cq(t, N, K);
    for (int64_t k = 0; k < K; ++k) EXPECT_EQ(d[1 * K + k], 0.0f);
    for (int64_t k = 128; k < 256; ++k) EXPECT_EQ(d[2 * K + k], 0.0f);
    EXPECT_GT(std::fabs(d[0]), 0.0f);
  }
  const auto t0 = q::quantize_cq(nullptr, 0, 64, 2);  // no rows at all
  EXPECT_TRUE(t0.codes.empty());
  EXPECT_TRUE(q::dequantize_cq(t0, 0, 64).empty());
}

TEST(Cq, KNotAMultipleOfTheGroup) {
  for (int64_t K : {int64_t(172), int64_t(48), int64_t(5), int64_t(130)}) {
    const int64_t N = 64;
    const auto w = randn(N * K, 5);
    double prev = 1e9;
    for (int bits = 1; bits <= 4; ++bits) {
      const auto t = q::quantize_cq(w.data(), N, K, bits);
      const auto d = q::dequantize_cq(t, N, K);
      ASSERT_EQ(int64_t(d.size()), N * K);
      const double e = rel_err(w, d);
      EXPECT_LT(e, prev) << "K=" << K << " bits=" << bits;
      EXPECT_LT(e, 1.6 * kGaussDistortion[bits] + 0.02) << "K=" << K << " bits=" << bits;
      prev = e;
    }
  }
}

TEST(Cq, DeterministicAcrossRunsAndThreadCounts) {
  const int64_t N = 333, K = 700;
  const auto w = randn(N * K, 6);
  for (int bits = 1; bits <= 4; ++bits) {
    q::set_num_threads(1);
    const auto a = q::quantize_cq(w.data(), N, K, bits);
    q::set_num_threads(0);
    const auto b = q::quantize_cq(w.data(), N, K, bits);
    const auto c = q::quantize_cq(w.data(), N, K, bits);
    EXPECT_EQ(a.codes, b.codes);
    EXPECT_EQ(a.norms, b.norms);
    EXPECT_EQ(b.codes, c.codes);
    EXPECT_EQ(b.norms, c.norms);
  }
}

TEST(Cq, BadInput) {
  const auto w = randn(64, 7);
  EXPECT_THROW(q::quantize_cq(w.data(), 1, 64, 0), std::invalid_argument);
  EXPECT_THROW(q::quantize_cq(w.data(), 1, 64, 5), std::invalid_argument);
  EXPECT_THROW(q::quantize_cq(w.data(), 1, 0, 2), std::invalid_argument);
  EXPECT_FALSE(q::cq_input_error(w.data(), 1, 64, 16).empty());
  EXPECT_TRUE(q::cq_input_error(w.data(), 1, 64, 2).empty());
  auto bad = w;
  bad[10] = NAN;
  EXPECT_FALSE(q::cq_input_error(bad.data(), 1, 64, 2).empty());
  EXPECT_THROW(q::quantize_cq(bad.data(), 1, 64, 2), std::invalid_argument);
  bad[10] = 1e5f;  // norm beyond fp16
  EXPECT_FALSE(q::cq_input_error(bad.data(), 1, 64, 2).empty());
  EXPECT_THROW(q::quantize_cq(bad.data(), 1, 64, 2), std::invalid_argument);
  auto t = q::quantize_cq(w.data(), 1, 64, 2);
  EXPECT_THROW(q::dequantize_cq(t, 1, 65), std::invalid_argument);
}

// ---------------------------------------------------------------------------------------------- RTN

TEST(Rtn, ErrorFallsWithBits) {
  const int64_t N = 64, K = 512;
  const auto w = randn(N * K, 8);
  for (bool sym : {true, false}) {
    // Symmetric 2-bit absmax has only the levels {-max, 0, max} and loses to 1-bit sign·mean|w| on Gaussians,
    // so the symmetric chain starts at 2 bits.
    double prev = 1e9;
    for (int bits = sym ? 2 : 1; bits <= 8; ++bits) {
      const double e = rel_err(w, q::rtn(w.data(), N, K, bits, sym));
      EXPECT_LT(e, prev) << "sym=" << sym << " bits=" << bits;
      prev = e;
    }
    EXPECT_LT(prev, 1e-4);
  }
}

TEST(Rtn, Definitions) {
  // One group of 4: symmetric 3 bits -> qmax 3, s = 3/3 = 1.
  const std::vector<float> w = {-3.0f, 0.4f, 1.6f, 2.5f};
  const auto s = q::rtn(w.data(), 1, 4, 3, true, 4);
  EXPECT_EQ(s, (std::vector<float>{-3.0f, 0.0f, 2.0f, 2.0f}));  // round-half-even: 2.5 -> 2
  // Asymmetric 2 bits: s = (2.5 + 3)/3, z = round(3/s) = round(1.636) = 2.
  const auto a = q::rtn(w.data(), 1, 4, 2, false, 4);
  const float sc = 5.5f / 3.0f;
  EXPECT_FLOAT_EQ(a[0], -2 * sc);
  EXPECT_FLOAT_EQ(a[1], 0.0f);
  EXPECT_FLOAT_EQ(a[2], sc);
  EXPECT_FLOAT_EQ(a[3], sc);
  // 1-bit symmetric: sign · mean|w|.
  const auto b = q::rtn(w.data(), 1, 4, 1, true, 4);
  EXPECT_FLOAT_EQ(b[0], -1.875f);
  EXPECT_FLOAT_EQ(b[3], 1.875f);
  // A constant group survives asymmetric RTN; groups are per row and the last one is shorter.
  const std::vector<float> c = {0.7f, 0.7f, 0.7f, 1.0f, -2.0f};
  const auto cc = q::rtn(c.data(), 1, 5, 2, false, 3);
  EXPECT_EQ(cc[0], 0.7f);
  EXPECT_EQ(cc[2], 0.7f);
  EXPECT_FLOAT_EQ(cc[3], 1.0f);  // s = 1, z = 2: both ends on the grid
  EXPECT_FLOAT_EQ(cc[4], -2.0f);
  EXPECT_THROW(q::rtn(w.data(), 1, 4, 0, true), std::invalid_argument);
}

// ---------------------------------------------------------------------------------------------- GPTQ

namespace {

/// Correlated activations X [T][K] (a random mixing of a few strong directions plus noise) and H = Xᵀ X.
void correlated_inputs(int64_t T, int64_t K, std::vector<float>& X, std::vector<float>& H, uint32_t seed) {
  const int64_t r = 16;
  const auto A = randn(r * K, seed);
  const auto Z = randn(T * r, seed + 1);
  const auto E = randn(T * K, seed + 2, 0.1f);
  X.assign(static_cast<size_t>(T * K), 0.0f);
  for (int64_t t = 0; t < T; ++t)
    for (int64_t k = 0; k < K; ++k) {
      double s = E[t * K + k];
      for (int64_t i = 0; i < r; ++i) s += double(Z[t * r + i]) * A[i * K + k];
      X[t * K + k] = float(s);
    }
  H.assign(static_cast<size_t>(K * K), 0.0f);
  for (int64_t a = 0; a < K; ++a)
    for (int64_t b = 0; b < K; ++b) {
      double s = 0.0;
      for (int64_t t = 0; t < T; ++t) s += double(X[t * K + a]) * X[t * K + b];
      H[a * K + b] = float(s);
    }
}

/// ‖X (W − Ŵ)ᵀ‖² — the layer-output error GPTQ minimizes.
double output_error(const std::vector<float>& X, const std::vector<float>& W, const std::vector<float>& Wq, int64_t T,
                    int64_t N, int64_t K) {
  double e = 0.0;
  for (int64_t t = 0; t < T; ++t)
    for (int64_t n = 0; n < N; ++n) {
      double s = 0.0;
      for (int64_t k = 0; k < K; ++k) s += double(X[t * K + k]) * (double(W[n * K + k]) - Wq[n * K + k]);
      e += s * s;
    }
  return e;
}

}  // namespace

TEST(Gptq, InverseCholeskyFactor) {
  for (const int64_t K : {int64_t(1), int64_t(37), int64_t(100)}) {  // blocks of 32: partial and several
  const auto A = randn(K * K, 9);
  std::vector<double> H(K * K, 0.0);
  for (int64_t i = 0; i < K; ++i)
    for (int64_t j = 0; j < K; ++j) {
      for (int64_t k = 0; k < K; ++k) H[i * K + j] += double(A[i * K + k]) * A[j * K + k];
      if (i == j) H[i * K + j] += 1.0;
    }
  std::vector<double> U;
  ASSERT_TRUE(q::detail::inverse_cholesky_upper(H, K, U));
  for (int64_t i = 0; i < K; ++i) {
    EXPECT_GT(U[i * K + i], 0.0);
    for (int64_t j = 0; j < i; ++j) EXPECT_EQ(U[i * K + j], 0.0);
  }
  // (Uᵀ U) H = I
  for (int64_t i = 0; i < K; ++i)
    for (int64_t j = 0; j < K; ++j) {
      double s = 0.0;
      for (int64_t m = 0; m < K; ++m) {
        double hinv = 0.0;
        for (int64_t k = 0; k < K; ++k) hinv += U[k * K + i] * U[k * K + m];
        s += hinv * H[m * K + j];
      }
      EXPECT_NEAR(s, i == j ? 1.0 : 0.0, 1e-8);
    }
  std::vector<double> bad(K * K, 0.0);
  EXPECT_FALSE(q::detail::inverse_cholesky_upper(bad, K, U));
  }
}

TEST(Gptq, BeatsRtnOnCorrelatedInputs) {
  const int64_t T = 512, N = 48, K = 256;
  std::vector<float> X, H;
  correlated_inputs(T, K, X, H, 10);
  const auto W = randn(N * K, 11);
  for (int bits : {2, 3, 4}) {
    const double e_rtn = output_error(X, W, q::rtn(W.data(), N, K, bits, false), T, N, K);
    const double e_gptq = output_error(X, W, q::gptq(W.data(), N, K, bits, H), T, N, K);
    EXPECT_LT(e_gptq, 0.8 * e_rtn) << bits;
  }
}

TEST(Gptq, IdentityHessianIsRoundToNearest) {
  const int64_t N = 16, K = 200;
  const auto W = randn(N * K, 12);
  std::vector<float> H(K * K, 0.0f);
  for (int64_t i = 0; i < K; ++i) H[i * K + i] = 1.0f;
  // Groups of random Gaussians contain both signs, where GPTQ's grid equals min/max RTN's.
  EXPECT_EQ(q::gptq(W.data(), N, K, 3, H, 128), q::rtn(W.data(), N, K, 3, false, 128));
}

TEST(Gptq, DeadInputsAreZeroedAndBadHessiansRejected) {
  const int64_t T = 256, N = 8, K = 64;
  std::vector<float> X, H;
  correlated_inputs(T, K, X, H, 13);
  for (int64_t k = 0; k < K; ++k) H[5 * K + k] = H[k * K + 5] = 0.0f;  // input 5 never active
  const auto W = randn(N * K, 14);
  const auto Q = q::gptq(W.data(), N, K, 4, H);
  for (int64_t n = 0; n < N; ++n) EXPECT_EQ(Q[n * K + 5], 0.0f);
  EXPECT_FALSE(q::hessian_error(std::vector<float>(10, 0.0f), K).empty());
  EXPECT_THROW(q::gptq(W.data(), N, K, 4, std::vector<float>(10, 0.0f)), std::invalid_argument);
  auto asym = H;
  asym[1] += 1000.0f;
  EXPECT_FALSE(q::hessian_error(asym, K).empty());
  EXPECT_TRUE(q::hessian_error(H, K).empty());
  // Rank-deficient H (fewer samples than inputs) still works thanks to damping.
  correlated_inputs(8, K, X, H, 15);
  EXPECT_NO_THROW(q::gptq(W.data(), N, K, 4, H));
}

// ---------------------------------------------------------------------------------------------- CQ + feedback

TEST(CqErrorFeedback, BeatsPlainCqOnCorrelatedInputs) {
  const int64_t T = 512, N = 32;
  for (int64_t K : {int64_t(256), int64_t(172)}) {
    std::vector<float> X, H;
    correlated_inputs(T, K, X, H, 16);
    const auto W = randn(N * K, 17);
    for (int bits : {2, 3, 4}) {
      const auto plain = q::dequantize_cq(q::quantize_cq(W.data(), N, K, bits), N, K);
      const auto t = q::cq_with_error_feedback(W.data(), N, K, bits, H);
      ASSERT_EQ(t.g, cq::group_size(int(K)));
      ASSERT_EQ(t.codes.size(), size_t(N * cq::row_code_bytes(int(K), bits)));
      const auto fb = q::dequantize_cq(t, N, K);
      const double e_plain = output_error(X, W, plain, T, N, K);
      const double e_fb = output_error(X, W, fb, T, N, K);
      EXPECT_LT(e_fb, 0.8 * e_plain) << "K=" << K << " bits=" << bits;
    }
  }
}

TEST(CqErrorFeedback, IdentityHessianIsPlainCq) {
  const int64_t N = 16, K = 256;
  const auto W = randn(N * K, 18);
  std::vector<float> H(K * K, 0.0f);
  for (int64_t i = 0; i < K; ++i) H[i * K + i] = 1.0f;
  for (int bits = 1; bits <= 4; ++bits) {
    const auto a = q::quantize_cq(W.data(), N, K, bits);
    const auto b = q::cq_with_error_feedback(W.data(), N, K, bits, H);
    // Without correlations nothing is fed forward: the same codes and the same least-squares scales (up to
    // one fp16 step from summation order).
    ASSERT_EQ(a.norms.size(), b.norms.size());
    for (size_t i = 0; i < a.norms.size(); ++i)
      EXPECT_LE(std::abs(int(a.norms[i]) - int(b.norms[i])), 1) << i;
    int differ = 0;
    for (int64_t n = 0; n < N; ++n)
      for (int i = 0; i < 256; ++i) {
        const int64_t off = n * cq::row_code_bytes(int(K), bits) + (i / 128) * (128 * bits / 8);
        differ += cq::read_code(a.codes.data() + off, i % 128, bits) != cq::read_code(b.codes.data() + off, i % 128, bits);
      }
    EXPECT_LE(differ, 4) << bits;  // only float-rounding ties may differ
  }
}

TEST(CqErrorFeedback, DefaultDampDependsOnBitsAndAnExplicitDampOverrides) {
  // The per-bits default of docs/quantization.md's validation table: damp 1 at 2 bits (and below), 0.1 at 3-4.
  EXPECT_EQ(q::default_damp(1), 1.0f);
  EXPECT_EQ(q::default_damp(2), 1.0f);
  EXPECT_EQ(q::default_damp(3), 0.1f);
  EXPECT_EQ(q::default_damp(4), 0.1f);
  EXPECT_EQ(q::damp_for(std::nullopt, 2), 1.0f);
  EXPECT_EQ(q::damp_for(std::nullopt, 4), 0.1f);
  EXPECT_EQ(q::damp_for(0.1f, 2), 0.1f);  // an explicit damp applies at every bit width
  EXPECT_EQ(q::damp_for(1.0f, 4), 1.0f);
  EXPECT_EQ(q::damp_for(0.0f, 2), 0.0f);  // zero is a damp, not "unset"

  // cq_with_error_feedback without a damp is the same as with default_damp(bits), and an explicit damp changes it.
  const int64_t T = 512, N = 16, K = 256;
  std::vector<float> X, H;
  correlated_inputs(T, K, X, H, 19);
  const auto W = randn(N * K, 20);
  for (int bits : {2, 3, 4}) {
    const auto def = q::cq_with_error_feedback(W.data(), N, K, bits, H);
    const auto same = q::cq_with_error_feedback(W.data(), N, K, bits, H, q::default_damp(bits));
    EXPECT_EQ(def.codes, same.codes) << bits;
    EXPECT_EQ(def.norms, same.norms) << bits;
    const float other = bits <= 2 ? 0.1f : 1.0f;
    const auto over = q::cq_with_error_feedback(W.data(), N, K, bits, H, other);
    EXPECT_NE(def.codes, over.codes) << bits;
  }
}
