// Codebook quantization: format primitives (cq_format.h) against the definitions of docs/quantization.md, and
// the cq kernels against a double-precision dequantize-then-matmul reference written here.
#include <cstring>
#include <limits>
#include <set>

#include "saguaro/kernels/cq_format.h"
#include "saguaro/kernels/kernels.h"
#include "test_util.h"

namespace saguaro::kernels::test {
namespace {

using Matrix = std::vector<std::vector<double>>;

/// Sylvester Hadamard matrix built by the definition H_1 = [1], H_2m = [[H_m, H_m], [H_m, -H_m]].
Matrix Hadamard(int g) {
  Matrix h{{1.0}};
  for (int m = 1; m < g; m *= 2) {
    Matrix next(2 * m, std::vector<double>(2 * m));
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < m; ++j) {
        next[i][j] = h[i][j];
        next[i][j + m] = h[i][j];
        next[i + m][j] = h[i][j];
        next[i + m][j + m] = -h[i][j];
      }
    h = std::move(next);
  }
  return h;
}

/// R_g = (1/√g)·H·diag(s)·P with (P v)[i] = v[π[i]], built from the definition.
Matrix RotationMatrix(int g) {
  const cq::Rotation rot = cq::make_rotation(g);
  const Matrix h = Hadamard(g);
  Matrix p(g, std::vector<double>(g, 0.0));
  for (int i = 0; i < g; ++i) p[i][rot.perm[i]] = 1.0;
  Matrix r(g, std::vector<double>(g, 0.0));
  for (int i = 0; i < g; ++i)
    for (int j = 0; j < g; ++j) {
      double acc = 0.0;
      for (int k = 0; k < g; ++k) acc += h[i][k] * rot.sign[k] * p[k][j];
      r[i][j] = acc / std::sqrt(static_cast<double>(g));
    }
  return r;
}

/// Code i of a group's bit stream, bit by bit from the definition (bit i·bits+b of the stream = bit b of code i).
uint32_t RefReadCode(const uint8_t* group, int i, int bits) {
  uint32_t code = 0;
  for (int b = 0; b < bits; ++b) {
    const int pos = i * bits + b;
    code |= static_cast<uint32_t>((group[pos / 8] >> (pos % 8)) & 1) << b;
  }
  return code;
}

/// Expects |got-want| <= rtol·max|want| over n values (output-scale relative tolerance, no floor).
void ExpectCloseToScale(const float* got, const double* want, size_t n, double rtol = 1e-5) {
  double scale = 0.0;
  for (size_t i = 0; i < n; ++i) scale = std::max(scale, std::fabs(want[i]));
  if (scale == 0.0) scale = 1.0;
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    const double err = std::fabs(static_cast<double>(got[i]) - want[i]);
    if (!(err <= rtol * scale) && bad++ < 5)
      ADD_FAILURE() << "index " << i << ": got " << got[i] << " want " << want[i] << " (scale " << scale << ")";
  }
  EXPECT_EQ(bad, 0u) << "mismatching values out of " << n;
}

// ---------------------------------------------------------------------------------------------------------------
// Constants and rotation.

TEST(CqFormat, Constants) {
  static_assert(cq::group_size(1) == 8 && cq::group_size(8) == 8 && cq::group_size(9) == 16);
  static_assert(cq::group_size(48) == 64 && cq::group_size(128) == 128 && cq::group_size(4096) == 128);
  static_assert(cq::padded_k(48) == 64 && cq::groups(48) == 1);
  static_assert(cq::padded_k(172) == 256 && cq::groups(172) == 2);
  static_assert(cq::padded_k(300) == 384 && cq::groups(300) == 3);
  static_assert(cq::padded_k(256) == 256 && cq::groups(256) == 2);
  static_assert(cq::row_code_bytes(300, 3) == 3 * 128 * 3 / 8);
  EXPECT_EQ(cq::kRotationSeed, 0x5A6E0C0DEB00C5ADull);
}

TEST(CqFormat, SplitMix64KnownValues) {
  // Reference outputs of Vigna's splitmix64 for seed 1234567.
  cq::SplitMix64 rng{1234567};
  EXPECT_EQ(rng.next(), 6457827717110365317ull);
  EXPECT_EQ(rng.next(), 3203168211198807973ull);
  EXPECT_EQ(rng.next(), 9817491932198370423ull);
  constexpr uint64_t kFirst = [] {
    cq::SplitMix64 r{1234567};
    return r.next();
  }();
  static_assert(kFirst == 6457827717110365317ull);
}

template <int G>
void CheckRotationTable() {
  SCOPED_TRACE(G);
  constexpr cq::RotationTable<G> table = cq::make_rotation_table<G>();
  const cq::Rotation rot = cq::make_rotation(G);
  ASSERT_EQ(rot.perm.size(), static_cast<size_t>(G));
  ASSERT_EQ(rot.sign.size(), static_cast<size_t>(G));
  std::set<int32_t> seen;
  for (int i = 0; i < G; ++i) {
    EXPECT_EQ(table.perm[i], rot.perm[i]) << i;
    EXPECT_EQ(table.sign[i], rot.sign[i]) << i;
    EXPECT_EQ(cq::kRotationTable<G>.perm[i], rot.perm[i]) << i;
    EXPECT_EQ(cq::kRotationTable<G>.sign[i], rot.sign[i]) << i;
    EXPECT_TRUE(rot.sign[i] == 1.0f || rot.sign[i] == -1.0f) << i;
    EXPECT_GE(rot.perm[i], 0);
    EXPECT_LT(rot.perm[i], G);
    seen.insert(rot.perm[i]);
  }
  EXPECT_EQ(seen.size(), static_cast<size_t>(G)) << "perm is not a permutation";
}

TEST(CqFormat, RotationTableEqualsRuntime) {
  CheckRotationTable<8>();
  CheckRotationTable<16>();
  CheckRotationTable<32>();
  CheckRotationTable<64>();
  CheckRotationTable<128>();
}

TEST(CqFormat, RotationPinnedValues) {
  // Computed independently (Python) from the spec: Fisher–Yates then signs from splitmix64 at the seed.
  const cq::Rotation r8 = cq::make_rotation(8);
  EXPECT_EQ(r8.perm, (std::vector<int32_t>{4, 7, 6, 1, 3, 0, 2, 5}));
  EXPECT_EQ(r8.sign, (std::vector<float>{-1, 1, -1, 1, -1, -1, -1, -1}));
  const cq::Rotation r16 = cq::make_rotation(16);
  EXPECT_EQ(r16.perm, (std::vector<int32_t>{11, 12, 14, 1, 3, 13, 7, 10, 0, 6, 2, 9, 4, 8, 15, 5}));
  EXPECT_EQ(r16.sign, (std::vector<float>{1, 1, 1, -1, 1, -1, -1, -1, -1, 1, -1, 1, -1, 1, -1, 1}));
  const cq::Rotation r128 = cq::make_rotation(128);
  const std::vector<int32_t> head(r128.perm.begin(), r128.perm.begin() + 16);
  EXPECT_EQ(head, (std::vector<int32_t>{13, 118, 69, 41, 85, 82, 51, 1, 114, 111, 24, 98, 59, 29, 56, 119}));
}

TEST(CqFormat, FwhtEqualsSylvesterMatrix) {
  for (int g = 1; g <= 128; g *= 2) {
    SCOPED_TRACE(g);
    const auto v = RandomFloats(g, 100 + g);
    std::vector<float> got = v;
    cq::fwht_inplace(got.data(), g);
    const Matrix h = Hadamard(g);
    std::vector<double> want(g);
    for (int i = 0; i < g; ++i)
      for (int j = 0; j < g; ++j) want[i] += h[i][j] * v[j];
    ExpectCloseToScale(got.data(), want.data(), g, 1e-6);
  }
}

TEST(CqFormat, RotateEqualsMatrixAndInverts) {
  for (int g = 8; g <= 128; g *= 2) {
    SCOPED_TRACE(g);
    const cq::Rotation rot = cq::make_rotation(g);
    const Matrix r = RotationMatrix(g);
    for (int trial = 0; trial < 4; ++trial) {
      const auto v = RandomFloats(g, 1000 * g + trial);
      std::vector<float> u(g), back(g);
      cq::rotate(v.data(), u.data(), g, rot.perm.data(), rot.sign.data());
      // R_g v from the explicit matrix.
      std::vector<double> want(g, 0.0);
      for (int i = 0; i < g; ++i)
        for (int j = 0; j < g; ++j) want[i] += r[i][j] * v[j];
      for (int i = 0; i < g; ++i) EXPECT_NEAR(u[i], want[i], 1e-6) << i;
      // Norm preserved.
      double nv = 0.0, nu = 0.0;
      for (int i = 0; i < g; ++i) {
        nv += static_cast<double>(v[i]) * v[i];
        nu += static_cast<double>(u[i]) * u[i];
      }
      EXPECT_NEAR(std::sqrt(nu), std::sqrt(nv), 1e-6 * std::sqrt(nv));
      // R_gᵀ from the explicit matrix, and unrotate(rotate(v)) = v.
      std::vector<double> wantT(g, 0.0);
      for (int i = 0; i < g; ++i)
        for (int j = 0; j < g; ++j) wantT[i] += r[j][i] * v[j];
      std::vector<float> t(g);
      cq::unrotate(v.data(), t.data(), g, rot.perm.data(), rot.sign.data());
      for (int i = 0; i < g; ++i) EXPECT_NEAR(t[i], wantT[i], 1e-6) << i;
      cq::unrotate(u.data(), back.data(), g, rot.perm.data(), rot.sign.data());
      for (int i = 0; i < g; ++i) EXPECT_NEAR(back[i], v[i], 1e-6) << i;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Bit streams and half floats.

TEST(CqFormat, CodeRoundTrip) {
  std::mt19937 gen(7);
  for (int bits = 1; bits <= 4; ++bits) {
    for (int g = 8; g <= 128; g *= 2) {
      SCOPED_TRACE(testing::Message() << "bits " << bits << " g " << g);
      const int nbytes = g * bits / 8;
      std::vector<uint32_t> codes(g);
      for (auto& c : codes) c = gen() & ((1u << bits) - 1u);
      for (uint8_t fill : {uint8_t{0x00}, uint8_t{0xFF}, uint8_t{0xA5}}) {
        // One guard byte on each side must stay untouched.
        std::vector<uint8_t> buf(nbytes + 2, fill);
        buf.front() = 0x3C;
        buf.back() = 0xC3;
        for (int i = 0; i < g; ++i) cq::write_code(buf.data() + 1, i, bits, codes[i] | (0xF0u << bits));
        EXPECT_EQ(buf.front(), 0x3C);
        EXPECT_EQ(buf.back(), 0xC3);
        for (int i = 0; i < g; ++i) {
          EXPECT_EQ(cq::read_code(buf.data() + 1, i, bits), codes[i]) << i;
          EXPECT_EQ(RefReadCode(buf.data() + 1, i, bits), codes[i]) << i;
        }
      }
      // Exact layout: the stream built bit by bit from the definition.
      std::vector<uint8_t> want(nbytes, 0), got(nbytes, 0);
      for (int i = 0; i < g; ++i)
        for (int b = 0; b < bits; ++b)
          if ((codes[i] >> b) & 1u) want[(i * bits + b) / 8] |= static_cast<uint8_t>(1u << ((i * bits + b) % 8));
      for (int i = 0; i < g; ++i) cq::write_code(got.data(), i, bits, codes[i]);
      EXPECT_EQ(got, want);
    }
  }
  // Hand-checked example: 3-bit codes 1..7,0 give the LSB-first stream 100 010 110 001 101 011 111 000.
  uint8_t b3[3] = {};
  for (int i = 0; i < 8; ++i) cq::write_code(b3, i, 3, static_cast<uint32_t>((i + 1) & 7));
  EXPECT_EQ(b3[0], 0xD1);  // stream bits 0..7 = 1,0,0,0,1,0,1,1
  EXPECT_EQ(b3[1], 0x58);
  EXPECT_EQ(b3[2], 0x1F);
}

uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

TEST(CqFormat, HalfKnownValues) {
  EXPECT_EQ(cq::float_to_half(1.0f), 0x3C00);
  EXPECT_EQ(cq::float_to_half(-2.0f), 0xC000);
  EXPECT_EQ(cq::float_to_half(65504.0f), 0x7BFF);
  EXPECT_EQ(cq::float_to_half(65519.99f), 0x7BFF);
  EXPECT_EQ(cq::float_to_half(65520.0f), 0x7C00);  // tie rounds to even = inf
  EXPECT_EQ(cq::float_to_half(1e10f), 0x7C00);
  EXPECT_EQ(cq::float_to_half(-1e10f), 0xFC00);
  EXPECT_EQ(cq::float_to_half(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(cq::float_to_half(std::ldexp(1.0f, -14)), 0x0400);
  EXPECT_EQ(cq::float_to_half(std::ldexp(1023.0f, -24)), 0x03FF);
  EXPECT_EQ(cq::float_to_half(std::ldexp(1023.5f, -24)), 0x0400);  // tie, rounds up into the normals
  EXPECT_EQ(cq::float_to_half(std::ldexp(1.0f, -25)), 0x0000);    // tie to even 0
  EXPECT_EQ(cq::float_to_half(std::ldexp(1.0001f, -25)), 0x0001);
  EXPECT_EQ(cq::float_to_half(std::ldexp(1.5f, -24)), 0x0002);  // tie to even
  EXPECT_EQ(cq::float_to_half(std::ldexp(2.5f, -24)), 0x0002);  // tie to even
  EXPECT_EQ(cq::float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3C00);      // tie to even
  EXPECT_EQ(cq::float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);  // tie to even (up)
  EXPECT_EQ(cq::float_to_half(1e-10f), 0x0000);
  EXPECT_EQ(cq::float_to_half(-0.0f), 0x8000);
  EXPECT_EQ(cq::float_to_half(0.0f), 0x0000);
  EXPECT_EQ(cq::float_to_half(std::numeric_limits<float>::infinity()), 0x7C00);
  EXPECT_EQ(cq::float_to_half(-std::numeric_limits<float>::infinity()), 0xFC00);
  const uint16_t qnan = cq::float_to_half(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(qnan & 0x7C00, 0x7C00);
  EXPECT_NE(qnan & 0x3FF, 0);
  // A signalling-NaN payload that lives only in the low float bits must still give a NaN.
  uint32_t snan_bits = 0x7F800001u;
  float snan;
  std::memcpy(&snan, &snan_bits, sizeof snan);
  EXPECT_NE(cq::float_to_half(snan) & 0x3FF, 0);

  EXPECT_EQ(cq::half_to_float(0x3C00), 1.0f);
  EXPECT_EQ(cq::half_to_float(0x7BFF), 65504.0f);
  EXPECT_EQ(cq::half_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(cq::half_to_float(0x03FF), std::ldexp(1023.0f, -24));
  EXPECT_EQ(cq::half_to_float(0x0400), std::ldexp(1.0f, -14));
  EXPECT_EQ(FloatBits(cq::half_to_float(0x8000)), 0x80000000u);
  EXPECT_EQ(cq::half_to_float(0x7C00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(cq::half_to_float(0xFC00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(cq::half_to_float(0x7E00)));
}

TEST(CqFormat, HalfRoundTripAllValues) {
  for (uint32_t h = 0; h < 0x10000u; ++h) {
    const float f = cq::half_to_float(static_cast<uint16_t>(h));
    const bool nan = (h & 0x7C00u) == 0x7C00u && (h & 0x3FFu) != 0;
    if (nan) {
      EXPECT_TRUE(std::isnan(f)) << h;
      EXPECT_EQ(cq::float_to_half(f) & 0x7C00u, 0x7C00u) << h;
      EXPECT_NE(cq::float_to_half(f) & 0x3FFu, 0u) << h;
    } else {
      ASSERT_EQ(cq::float_to_half(f), h) << h;
    }
  }
}

TEST(CqFormat, HalfRoundsToNearestEven) {
  // Every float between two consecutive finite halves rounds to the nearer one (the even one at the midpoint),
  // checked in double on random floats spanning the half range.
  std::mt19937 gen(11);
  for (int trial = 0; trial < 200000; ++trial) {
    const uint32_t bits = (gen() % 0x47800000u) | (trial & 1 ? 0x80000000u : 0u);  // |x| < 65536
    float f;
    std::memcpy(&f, &bits, sizeof f);
    const uint16_t h = cq::float_to_half(f);
    const double x = std::fabs(static_cast<double>(f));
    if ((h & 0x7FFFu) == 0x7C00u) {
      ASSERT_GE(x, 65520.0) << f;
      continue;
    }
    const double got = std::fabs(static_cast<double>(cq::half_to_float(h)));
    const uint16_t mag = h & 0x7FFFu;
    const double below = mag > 0 ? cq::half_to_float(static_cast<uint16_t>(mag - 1)) : -1.0;
    const double above = mag < 0x7BFF ? cq::half_to_float(static_cast<uint16_t>(mag + 1)) : 65536.0;
    const double err = std::fabs(got - x);
    ASSERT_LE(err, std::fabs(below - x)) << f;
    ASSERT_LE(err, std::fabs(above - x)) << f;
    if (err == std::fabs(above - x) || (mag > 0 && err == std::fabs(below - x))) {
      if (err != 0.0) {
        ASSERT_EQ(mag & 1u, 0u) << "tie not to even: " << f;
      }
    }
    ASSERT_EQ((h & 0x8000u) != 0, std::signbit(f)) << f;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Kernels against dequantize-then-matmul in double.

/// A random quantized [rows][K] tensor: codes, norms (some groups zero), codebook (sorted).
struct QTensor {
  int K = 0, bits = 0, rows = 0;
  std::vector<uint8_t> codes;
  std::vector<uint16_t> norms;
  std::vector<float> codebook;
};

QTensor RandomQTensor(int rows, int K, int bits, uint32_t seed) {
  QTensor q;
  q.K = K;
  q.bits = bits;
  q.rows = rows;
  std::mt19937 gen(seed);
  const int g = cq::group_size(K), G = cq::groups(K);
  const int gbytes = g * bits / 8;
  q.codes.resize(static_cast<size_t>(rows) * G * gbytes);
  q.norms.resize(static_cast<size_t>(rows) * G);
  for (auto& b : q.codes) b = static_cast<uint8_t>(gen() & 0xFF);
  std::uniform_real_distribution<float> nd(0.25f, 4.0f);
  for (int n = 0; n < rows; ++n)
    for (int j = 0; j < G; ++j) {
      uint16_t& h = q.norms[static_cast<size_t>(n) * G + j];
      if (gen() % 11 == 0) {  // an all-zero group: norm 0, codes 0 (as the quantizer writes it)
        h = 0;
        std::fill_n(q.codes.begin() + (static_cast<size_t>(n) * G + j) * gbytes, gbytes, uint8_t{0});
      } else {
        h = cq::float_to_half(nd(gen));
      }
    }
  std::uniform_real_distribution<float> cd(-0.3f, 0.3f);
  q.codebook.resize(size_t{1} << bits);
  for (auto& c : q.codebook) c = cd(gen);
  std::sort(q.codebook.begin(), q.codebook.end());
  return q;
}

/// Row n of the dequantized tensor (padded_k(K) doubles): ŵ_j = σ_j · R_gᵀ c[code_j] via the explicit matrix.
std::vector<double> Dequantize(const QTensor& q, int n, const Matrix& r) {
  const int g = cq::group_size(q.K), G = cq::groups(q.K);
  const int gbytes = g * q.bits / 8;
  std::vector<double> w(static_cast<size_t>(G) * g);
  for (int j = 0; j < G; ++j) {
    const uint8_t* grp = q.codes.data() + (static_cast<size_t>(n) * G + j) * gbytes;
    const double sigma = cq::half_to_float(q.norms[static_cast<size_t>(n) * G + j]);
    for (int k = 0; k < g; ++k) {
      double acc = 0.0;
      for (int i = 0; i < g; ++i) acc += r[i][k] * q.codebook[RefReadCode(grp, i, q.bits)];
      w[static_cast<size_t>(j) * g + k] = sigma * acc;
    }
  }
  return w;
}

/// y[r][n] = Σ_{k<K} ŵ[n][k]·x[r][k] in double with the original (un-rotated) x.
std::vector<double> RefCqMatmul(const QTensor& q, int N, int rows, const std::vector<float>& x) {
  const Matrix r = RotationMatrix(cq::group_size(q.K));
  std::vector<double> y(static_cast<size_t>(rows) * N);
  for (int n = 0; n < N; ++n) {
    const std::vector<double> w = Dequantize(q, n, r);
    for (int row = 0; row < rows; ++row) {
      double acc = 0.0;
      for (int k = 0; k < q.K; ++k) acc += w[k] * x[static_cast<size_t>(row) * q.K + k];
      y[static_cast<size_t>(row) * N + n] = acc;
    }
  }
  return y;
}

template <int K>
void CheckRotate(int32_t rows) {
  SCOPED_TRACE(testing::Message() << "K " << K << " rows " << rows);
  constexpr int g = cq::group_size(K), Kp = cq::padded_k(K);
  const Matrix r = RotationMatrix(g);
  const auto x = RandomFloats(static_cast<size_t>(rows) * K, 50 + K);
  std::vector<float> xr(static_cast<size_t>(rows) * Kp, 123.0f);
  cq_rotate_f32<K>(rows, x.data(), xr.data());
  std::vector<double> want(xr.size(), 0.0);
  for (int row = 0; row < rows; ++row)
    for (int k0 = 0; k0 < Kp; k0 += g)
      for (int i = 0; i < g; ++i) {
        double acc = 0.0;
        for (int t = 0; t < g; ++t)
          if (k0 + t < K) acc += r[i][t] * x[static_cast<size_t>(row) * K + k0 + t];
        want[static_cast<size_t>(row) * Kp + k0 + i] = acc;
      }
  ExpectCloseToScale(xr.data(), want.data(), xr.size(), 1e-6);
}

TEST(CqRotateF32, Shapes) {
  for (int rows : {1, 3, 7}) {
    CheckRotate<1>(rows);
    CheckRotate<8>(rows);
    CheckRotate<48>(rows);
    CheckRotate<64>(rows);
    CheckRotate<172>(rows);
    CheckRotate<256>(rows);
    CheckRotate<300>(rows);
  }
}

template <int K, int N, int Bits>
void CheckMatmulAndLogits() {
  const QTensor q = RandomQTensor(N, K, Bits, 1000 * K + 10 * N + Bits);
  constexpr int Kp = cq::padded_k(K);
  for (int32_t rows : {1, 3, 7}) {
    SCOPED_TRACE(testing::Message() << "K " << K << " N " << N << " Bits " << Bits << " rows " << rows);
    const auto x = RandomFloats(static_cast<size_t>(rows) * K, 77 * K + N + rows);
    std::vector<float> xr(static_cast<size_t>(rows) * Kp);
    cq_rotate_f32<K>(rows, x.data(), xr.data());
    const auto want = RefCqMatmul(q, N, rows, x);

    std::vector<float> y(static_cast<size_t>(rows) * N, -9.0f);
    cq_matmul_f32<K, N, Bits>(rows, xr.data(), q.codes.data(), q.norms.data(), q.codebook.data(), y.data());
    ExpectCloseToScale(y.data(), want.data(), y.size());

    // Each row's result does not depend on how many rows are processed together.
    for (int32_t row = 0; row < rows; ++row) {
      std::vector<float> one(N);
      cq_matmul_f32<K, N, Bits>(1, xr.data() + static_cast<size_t>(row) * Kp, q.codes.data(), q.norms.data(),
                                q.codebook.data(), one.data());
      for (int n = 0; n < N; ++n) ASSERT_EQ(one[n], y[static_cast<size_t>(row) * N + n]) << row << " " << n;
    }

    std::vector<float> all(static_cast<size_t>(rows) * N, -9.0f);
    cq_logits_f32<K, N, Bits>(rows, true, xr.data(), q.codes.data(), q.norms.data(), q.codebook.data(), all.data());
    ExpectCloseToScale(all.data(), want.data(), all.size());
    std::vector<float> last(static_cast<size_t>(N) + 1, -9.0f);
    cq_logits_f32<K, N, Bits>(rows, false, xr.data(), q.codes.data(), q.norms.data(), q.codebook.data(),
                              last.data());
    ExpectCloseToScale(last.data(), want.data() + static_cast<size_t>(rows - 1) * N, N);
    EXPECT_EQ(last[N], -9.0f) << "wrote past N";
  }
}

template <int K, int Bits>
void CheckMatmulAllN() {
  CheckMatmulAndLogits<K, 1, Bits>();
  CheckMatmulAndLogits<K, 5, Bits>();
  CheckMatmulAndLogits<K, 33, Bits>();
}

template <int Bits>
void CheckMatmulAllShapes() {
  CheckMatmulAllN<8, Bits>();
  CheckMatmulAllN<48, Bits>();
  CheckMatmulAllN<64, Bits>();
  CheckMatmulAllN<172, Bits>();
  CheckMatmulAllN<256, Bits>();
  CheckMatmulAllN<300, Bits>();
}

TEST(CqMatmulF32, Bits1) { CheckMatmulAllShapes<1>(); }
TEST(CqMatmulF32, Bits2) { CheckMatmulAllShapes<2>(); }
TEST(CqMatmulF32, Bits3) { CheckMatmulAllShapes<3>(); }
TEST(CqMatmulF32, Bits4) { CheckMatmulAllShapes<4>(); }

template <int D, int Bits>
void CheckEmbed() {
  constexpr int V = 37;
  const QTensor q = RandomQTensor(V, D, Bits, 500 * D + Bits);
  const Matrix r = RotationMatrix(cq::group_size(D));
  std::vector<std::vector<double>> deq(V);
  for (int v = 0; v < V; ++v) deq[v] = Dequantize(q, v, r);
  for (int32_t rows : {1, 3, 7}) {
    for (float scale : {1.0f, 0.5f, std::sqrt(static_cast<float>(D))}) {
      SCOPED_TRACE(testing::Message() << "D " << D << " Bits " << Bits << " rows " << rows << " scale " << scale);
      std::vector<int32_t> tok(rows);
      for (int32_t i = 0; i < rows; ++i) tok[i] = (i * 13 + rows + D) % V;
      tok[0] = V - 1;
      if (rows > 1) tok[1] = 0;
      std::vector<float> out(static_cast<size_t>(rows) * D + 1, -9.0f);
      cq_embed_f32<D, Bits>(rows, tok.data(), q.codes.data(), q.norms.data(), q.codebook.data(), scale, out.data());
      std::vector<double> want(static_cast<size_t>(rows) * D);
      for (int32_t i = 0; i < rows; ++i)
        for (int k = 0; k < D; ++k) want[static_cast<size_t>(i) * D + k] = deq[tok[i]][k] * scale;
      ExpectCloseToScale(out.data(), want.data(), want.size());
      EXPECT_EQ(out.back(), -9.0f) << "wrote past rows*D";
    }
  }
}

template <int Bits>
void CheckEmbedAllShapes() {
  CheckEmbed<8, Bits>();
  CheckEmbed<48, Bits>();
  CheckEmbed<64, Bits>();
  CheckEmbed<172, Bits>();
  CheckEmbed<256, Bits>();
  CheckEmbed<300, Bits>();
}

TEST(CqEmbedF32, Bits1) { CheckEmbedAllShapes<1>(); }
TEST(CqEmbedF32, Bits2) { CheckEmbedAllShapes<2>(); }
TEST(CqEmbedF32, Bits3) { CheckEmbedAllShapes<3>(); }
TEST(CqEmbedF32, Bits4) { CheckEmbedAllShapes<4>(); }

TEST(CqEmbedF32, ZeroGroupDecodesToZero) {
  // σ = 0 with codes 0 (the quantizer's all-zero group) decodes to exact zeros.
  constexpr int D = 172;
  const int G = cq::groups(D);
  std::vector<uint8_t> codes(static_cast<size_t>(cq::row_code_bytes(D, 2)), 0);
  std::vector<uint16_t> norms(G, 0);
  const std::vector<float> cb = {-0.2f, -0.05f, 0.05f, 0.2f};
  const int32_t tok = 0;
  std::vector<float> out(D, 1.0f);
  cq_embed_f32<D, 2>(1, &tok, codes.data(), norms.data(), cb.data(), 1.0f, out.data());
  for (float v : out) EXPECT_EQ(v, 0.0f);
}

}  // namespace
}  // namespace saguaro::kernels::test
