// The int8 activation path of the CQ kernels (generic/cq_i8.h) and the packed code layouts (cq_format.h), against
// the definitions of docs/quantization.md ("Packed layouts", "Integer kernels") written out here.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "saguaro/kernels/cq_format.h"
#include "saguaro/kernels/kernels.h"

namespace saguaro::kernels::test {
namespace {

std::vector<uint8_t> RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(gen());
  return v;
}

TEST(CqLayout, PlanarChunkSizes) {
  EXPECT_EQ(cq::planar_chunk(128, 4), 64);
  EXPECT_EQ(cq::planar_chunk(128, 3), 128);
  EXPECT_EQ(cq::planar_chunk(128, 2), 128);
  EXPECT_EQ(cq::planar_chunk(128, 1), 32);
  EXPECT_EQ(cq::planar_chunk(64, 2), 64);
  EXPECT_EQ(cq::planar_chunk(8, 4), 8);
}

// The definition, byte by byte, for one 4-bit 64-code chunk and one 2-bit 128-code chunk.
TEST(CqLayout, PlanarKnownBytes) {
  std::vector<uint8_t> lsb(32, 0), packed(32);
  for (int i = 0; i < 64; ++i) cq::write_code(lsb.data(), i, 4, static_cast<uint32_t>(i % 16));
  cq::pack_group(lsb.data(), packed.data(), 64, 4, cq::kLayoutPlanar);
  for (int e = 0; e < 32; ++e) EXPECT_EQ(packed[e], (e % 16) | ((32 + e) % 16) << 4) << "byte " << e;

  std::vector<uint8_t> lsb2(32, 0), packed2(32);
  for (int i = 0; i < 128; ++i) cq::write_code(lsb2.data(), i, 2, static_cast<uint32_t>(i / 32));
  cq::pack_group(lsb2.data(), packed2.data(), 128, 2, cq::kLayoutPlanar);
  for (int e = 0; e < 32; ++e) EXPECT_EQ(packed2[e], 0 | 1 << 2 | 2 << 4 | 3 << 6) << "byte " << e;
}

TEST(CqLayout, PackThenReadReturnsEveryCode) {
  for (int bits = 1; bits <= 4; ++bits)
    for (int g : {8, 16, 32, 64, 128})
      for (int layout : {cq::kLayoutLsb, cq::kLayoutPlanar}) {
        SCOPED_TRACE(testing::Message() << "bits " << bits << " g " << g << " layout " << layout);
        const auto lsb = RandomBytes(g * bits / 8, 7 * bits + g);
        std::vector<uint8_t> packed(lsb.size());
        cq::pack_group(lsb.data(), packed.data(), g, bits, layout);
        for (int i = 0; i < g; ++i)
          ASSERT_EQ(cq::read_code_in(packed.data(), i, g, bits, layout), cq::read_code(lsb.data(), i, bits)) << i;
      }
}

// Panels of 8 rows: [panel][group][row in panel]; the last panel holds N mod 8 rows.
TEST(CqLayout, PanelGroupIndex) {
  constexpr int64_t N = 11;
  constexpr int G = 2;
  EXPECT_EQ(cq::group_index(0, 0, N, G, cq::kLayoutPlanarPanel8), 0);
  EXPECT_EQ(cq::group_index(1, 0, N, G, cq::kLayoutPlanarPanel8), 1);
  EXPECT_EQ(cq::group_index(0, 1, N, G, cq::kLayoutPlanarPanel8), 8);
  EXPECT_EQ(cq::group_index(7, 1, N, G, cq::kLayoutPlanarPanel8), 15);
  EXPECT_EQ(cq::group_index(8, 0, N, G, cq::kLayoutPlanarPanel8), 16);
  EXPECT_EQ(cq::group_index(9, 1, N, G, cq::kLayoutPlanarPanel8), 20);
  EXPECT_EQ(cq::group_index(10, 1, N, G, cq::kLayoutPlanarPanel8), 21);
  EXPECT_EQ(cq::group_index(9, 1, N, G, cq::kLayoutPlanar), 19);
  // Every (row, group) lands on a distinct slot.
  std::vector<int> seen(N * G, 0);
  for (int64_t n = 0; n < N; ++n)
    for (int j = 0; j < G; ++j) ++seen[cq::group_index(n, j, N, G, cq::kLayoutPlanarPanel8)];
  for (int v : seen) EXPECT_EQ(v, 1);
}

TEST(CqInt8, CodebookRange) {
  const float cb[16] = {-0.31f, -0.2f, -0.1f, -0.05f, -0.02f, 0.0f, 0.01f, 0.03f,
                        0.06f,  0.09f, 0.12f, 0.15f,  0.2f,   0.25f, 0.28f, 0.3f};
  int8_t q[16];
  float s;
  cq::int8_codebook(cb, 4, q, &s);
  EXPECT_EQ(q[0], -64);
  EXPECT_FLOAT_EQ(s, 0.31f / 64.0f);
  for (int c = 0; c < 16; ++c) EXPECT_LE(std::fabs(q[c] * s - cb[c]), 0.5 * s + 1e-7) << c;
}

// Quantized activations: |q·scale − x| <= scale/2, the group's largest |x| maps to ±127, sums are Σ q.
TEST(CqInt8, QuantizeActivationsDefinition) {
  constexpr int K = 300, Kp = cq::padded_k(K), G = cq::groups(K), g = cq::group_size(K);
  std::mt19937 gen(3);
  std::normal_distribution<float> nd(0.0f, 2.0f);
  std::vector<float> x(2 * Kp);
  for (auto& v : x) v = nd(gen);
  for (int i = 0; i < g; ++i) x[Kp + i] = 0.0f;  // an all-zero group
  std::vector<uint8_t> xq(2 * cq::act_row_bytes(K));
  generic::cq_quantize_act_i8<K>(2, x.data(), xq.data());
  for (int r = 0; r < 2; ++r) {
    const uint8_t* row = xq.data() + r * cq::act_row_bytes(K);
    for (int j = 0; j < G; ++j) {
      float scale;
      int32_t sum;
      std::memcpy(&scale, row + Kp + 4 * j, 4);
      std::memcpy(&sum, row + Kp + 4 * G + 4 * j, 4);
      double amax = 0;
      int32_t want_sum = 0, qmax = 0;
      for (int i = 0; i < g; ++i) {
        const double v = x[r * Kp + j * g + i];
        const int q = static_cast<int8_t>(row[j * g + i]);
        amax = std::max(amax, std::fabs(v));
        want_sum += q;
        qmax = std::max(qmax, std::abs(q));
        EXPECT_LE(std::fabs(q * static_cast<double>(scale) - v), 0.5 * scale * (1 + 1e-6) + 1e-12);
      }
      EXPECT_EQ(sum, want_sum);
      EXPECT_NEAR(scale, amax / 127.0, 1e-7 * amax);
      EXPECT_EQ(qmax, amax > 0 ? 127 : 0);
    }
  }
}

// The matmul equals Σ_j σ_j·scale_j·s_cb·Σ_i qcb[code]·q_i computed here in double (from the stored integers),
// within float rounding, for both layouts and every bit width.
template <int K, int N, int Bits, int Layout>
void CheckMatmulDefinition(int rows) {
  SCOPED_TRACE(testing::Message() << "K " << K << " N " << N << " bits " << Bits << " layout " << Layout);
  constexpr int g = cq::group_size(K), G = cq::groups(K), Kp = cq::padded_k(K);
  constexpr int kRowBytes = cq::row_code_bytes(K, Bits), kGroupBytes = cq::group_code_bytes(K, Bits);
  std::mt19937 gen(K * 31 + N + Bits);
  std::vector<float> x(rows * Kp);
  for (auto& v : x) v = std::normal_distribution<float>(0.0f, 1.0f)(gen);
  std::vector<uint8_t> xq(rows * cq::act_row_bytes(K));
  generic::cq_quantize_act_i8<K>(rows, x.data(), xq.data());
  const auto codes = RandomBytes(N * kRowBytes, gen());
  std::vector<uint16_t> norms(N * G);
  for (auto& h : norms) h = cq::float_to_half(std::uniform_real_distribution<float>(0.1f, 3.0f)(gen));
  std::vector<float> cb(1 << Bits);
  for (auto& c : cb) c = std::uniform_real_distribution<float>(-0.3f, 0.3f)(gen);
  std::vector<float> y(rows * N);
  generic::cq_matmul_i8<K, N, Bits, Layout>(rows, xq.data(), codes.data(), norms.data(), cb.data(), y.data());
  int8_t qcb[16];
  float scb;
  cq::int8_codebook(cb.data(), Bits, qcb, &scb);
  for (int r = 0; r < rows; ++r) {
    const uint8_t* row = xq.data() + r * cq::act_row_bytes(K);
    for (int n = 0; n < N; ++n) {
      double want = 0, mag = 0;
      for (int j = 0; j < G; ++j) {
        float scale;
        std::memcpy(&scale, row + Kp + 4 * j, 4);
        double dot = 0;
        for (int i = 0; i < g; ++i)
          dot += qcb[cq::read_code_in(codes.data() + cq::group_index(n, j, N, G, Layout) * kGroupBytes, i, g, Bits,
                                      Layout)] *
                 static_cast<double>(static_cast<int8_t>(row[j * g + i]));
        const double term =
            cq::half_to_float(norms[cq::group_index(n, j, N, G, Layout)]) * static_cast<double>(scale) * scb * dot;
        want += term;
        mag += std::fabs(term);
      }
      ASSERT_NEAR(y[r * N + n], want, 1e-6 * mag + 1e-30) << "row " << r << " col " << n;
    }
  }
}

TEST(CqInt8, MatmulDefinition) {
  for (int rows : {1, 3, 6}) {
    CheckMatmulDefinition<64, 5, 4, cq::kLayoutLsb>(rows);
    CheckMatmulDefinition<64, 5, 4, cq::kLayoutPlanar>(rows);
    CheckMatmulDefinition<300, 7, 3, cq::kLayoutPlanar>(rows);
    CheckMatmulDefinition<256, 9, 2, cq::kLayoutPlanar>(rows);
    CheckMatmulDefinition<128, 4, 1, cq::kLayoutPlanar>(rows);
    CheckMatmulDefinition<24, 3, 3, cq::kLayoutLsb>(rows);
    CheckMatmulDefinition<256, 19, 4, cq::kLayoutPlanarPanel8>(rows);
    CheckMatmulDefinition<128, 8, 2, cq::kLayoutPlanarPanel8>(rows);
  }
}

// Against the float path on the same weights: the int8 path approximates it to a few tenths of a percent of the
// output scale (activations rounded to 1/254 of each group's range, codebook to 1/128 of its range).
TEST(CqInt8, CloseToFloatPath) {
  constexpr int K = 512, N = 64, Bits = 4;
  constexpr int Kp = cq::padded_k(K), G = cq::groups(K);
  std::mt19937 gen(11);
  std::vector<float> x(Kp);
  for (auto& v : x) v = std::normal_distribution<float>(0.0f, 1.0f)(gen);
  const auto codes = RandomBytes(N * cq::row_code_bytes(K, Bits), 5);
  std::vector<uint16_t> norms(N * G, cq::float_to_half(1.0f));
  std::vector<float> cb(16);
  for (int c = 0; c < 16; ++c) cb[c] = (c - 7.5f) * 0.02f;
  std::vector<uint8_t> xq(cq::act_row_bytes(K));
  generic::cq_quantize_act_i8<K>(1, x.data(), xq.data());
  std::vector<float> yi(N), yf(N);
  generic::cq_matmul_i8<K, N, Bits, cq::kLayoutLsb>(1, xq.data(), codes.data(), norms.data(), cb.data(), yi.data());
  generic::cq_matmul_f32<K, N, Bits>(1, x.data(), codes.data(), norms.data(), cb.data(), yf.data());
  double scale = 0;
  for (float v : yf) scale = std::max(scale, std::fabs(static_cast<double>(v)));
  for (int n = 0; n < N; ++n) EXPECT_NEAR(yi[n], yf[n], 0.01 * scale) << n;
}

}  // namespace
}  // namespace saguaro::kernels::test
