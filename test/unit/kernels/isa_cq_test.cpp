// ISA CQ kernels against the generic ones: code decoding and half-float norms exact, rotation and embedding
// decode bit-identical, matmul/logits within 1e-5 of the output scale and independent of the row count.
#include <random>

#include "isa_test_util.h"
#include "saguaro/kernels/cq_format.h"

namespace saguaro::kernels::test {
namespace {

/// A random CQ tensor [rows][K]: random codes, norms (some zero groups, some subnormal), sorted codebook.
struct QTensor {
  std::vector<uint8_t> codes;
  std::vector<uint16_t> norms;
  std::vector<float> codebook;
};

QTensor RandomQTensor(int rows, int K, int bits, uint32_t seed) {
  std::mt19937 gen(seed);
  const int G = cq::groups(K);
  QTensor q;
  q.codes.resize(static_cast<size_t>(rows) * cq::row_code_bytes(K, bits));
  for (auto& b : q.codes) b = static_cast<uint8_t>(gen());
  q.norms.resize(static_cast<size_t>(rows) * G);
  std::uniform_real_distribution<float> nd(0.25f, 4.0f);
  for (auto& h : q.norms) {
    const uint32_t pick = gen() % 13;
    h = pick == 0 ? uint16_t{0} : pick == 1 ? static_cast<uint16_t>(1 + gen() % 0x3FF) : cq::float_to_half(nd(gen));
  }
  std::uniform_real_distribution<float> cd(-0.3f, 0.3f);
  q.codebook.resize(size_t{1} << bits);
  for (auto& c : q.codebook) c = cd(gen);
  std::sort(q.codebook.begin(), q.codebook.end());
  return q;
}

template <int Bits, int g>
void CheckDecodeGroup() {
  SCOPED_TRACE(testing::Message() << "Bits " << Bits << " g " << g);
  std::mt19937 gen(10 * Bits + g);
  std::vector<float> cb(size_t{1} << Bits);
  for (auto& c : cb) c = std::uniform_real_distribution<float>(-1.0f, 1.0f)(gen);
  for (int trial = 0; trial < 20; ++trial) {
    // Exactly one group, so a read past its end would leave the allocation.
    std::vector<uint8_t> codes(g * Bits / 8);
    for (auto& b : codes) b = static_cast<uint8_t>(gen());
    std::vector<float> want(g), got(g);
    generic::cq_detail::decode_group<Bits>(codes.data(), g, cb.data(), want.data());
#if defined(SAGUARO_TEST_ARM64_NEON)
    isa::cq_detail::decode_group<Bits, g>(codes.data(), isa::cq_detail::make_decoder<Bits>(cb.data()), got.data());
#else
    isa::cq_detail::decode_group<Bits, g>(codes.data(), cb.data(), got.data());
#endif
    ExpectBitEqual(got.data(), want.data(), g);
  }
}

template <int Bits>
void CheckDecodeAllGroupSizes() {
  CheckDecodeGroup<Bits, 8>();
  CheckDecodeGroup<Bits, 16>();
  CheckDecodeGroup<Bits, 32>();
  CheckDecodeGroup<Bits, 64>();
  CheckDecodeGroup<Bits, 128>();
}

TEST(IsaCq, DecodeGroupExact) {
  SAGUARO_REQUIRE_ISA();
  CheckDecodeAllGroupSizes<1>();
  CheckDecodeAllGroupSizes<2>();
  CheckDecodeAllGroupSizes<3>();
  CheckDecodeAllGroupSizes<4>();
}

TEST(IsaCq, HalfToFloatExactForAllValues) {
  SAGUARO_REQUIRE_ISA();
  std::vector<uint16_t> all(0x10000);
  for (uint32_t h = 0; h < 0x10000u; ++h) all[h] = static_cast<uint16_t>(h);
  std::vector<float> got(all.size()), want(all.size());
  isa::cq_detail::norms_to_float(all.data(), static_cast<int>(all.size()), got.data());
  for (size_t i = 0; i < all.size(); ++i) want[i] = cq::half_to_float(all[i]);
  ExpectBitEqual(got.data(), want.data(), all.size());
}

template <int K>
void CheckRotate() {
  for (int32_t rows : {1, 2, 5, 9}) {
    SCOPED_TRACE(testing::Message() << "K " << K << " rows " << rows);
    constexpr int Kp = cq::padded_k(K);
    const auto x = RandomFloats(static_cast<size_t>(rows) * K, 31 * K + rows, -2.0f, 2.0f);
    std::vector<float> want(static_cast<size_t>(rows) * Kp, 7.0f), got(want.size(), -7.0f);
    generic::cq_rotate_f32<K>(rows, x.data(), want.data());
    isa::cq_rotate_f32<K>(rows, x.data(), got.data());
    ExpectBitEqual(got.data(), want.data(), want.size());
  }
}

// Prefill rows split over 2, 3 and 5 threads (ReversedPool) rotate exactly as on one thread, and as the generic
// kernel; a single row stays on the calling thread.
TEST(IsaCq, RotateThreadSplitBitIdentical) {
  SAGUARO_REQUIRE_ISA();
  constexpr int K = 1000, rows = 64;  // a zero-padded last group; rows·padded_k·work above kMinParallelWork
  const auto x = RandomFloats(static_cast<size_t>(rows) * K, 77, -2.0f, 2.0f);
  std::vector<float> want(static_cast<size_t>(rows) * cq::padded_k(K));
  generic::cq_rotate_f32<K>(rows, x.data(), want.data());
  ExpectThreadSplitBitIdentical(want.size(), [&](float* y, const Parallel* par) {
    isa::cq_rotate_f32<K>(rows, x.data(), y, par);
  });
  std::vector<float> got(want.size());
  isa::cq_rotate_f32<K>(rows, x.data(), got.data());
  ExpectBitEqual(got.data(), want.data(), want.size());
  ReversedPool pool(2);
  isa::cq_rotate_f32<K>(1, x.data(), got.data(), &pool.par);
  EXPECT_EQ(pool.runs, 0) << "one row was handed to the pool";
}

TEST(IsaCq, RotateBitIdentical) {
  SAGUARO_REQUIRE_ISA();
  CheckRotate<1>();
  CheckRotate<5>();
  CheckRotate<8>();
  CheckRotate<13>();
  CheckRotate<48>();
  CheckRotate<64>();
  CheckRotate<128>();
  CheckRotate<172>();
  CheckRotate<256>();
  CheckRotate<300>();
  CheckRotate<1000>();
}

template <int K, int N, int Bits>
void CheckMatmul() {
  constexpr int Kp = cq::padded_k(K);
  const QTensor q = RandomQTensor(N, K, Bits, 1000 * K + 10 * N + Bits);
  for (int32_t rows = 1; rows <= 9; ++rows) {
    SCOPED_TRACE(testing::Message() << "K " << K << " N " << N << " Bits " << Bits << " rows " << rows);
    const auto x = RandomFloats(static_cast<size_t>(rows) * K, 77 * K + N + rows);
    std::vector<float> xr(static_cast<size_t>(rows) * Kp);
    generic::cq_rotate_f32<K>(rows, x.data(), xr.data());
    const void *codes = q.codes.data(), *norms = q.norms.data(), *cb = q.codebook.data();

    std::vector<float> want(static_cast<size_t>(rows) * N), got(want.size(), -9.0f);
    generic::cq_matmul_f32<K, N, Bits>(rows, xr.data(), codes, norms, cb, want.data());
    isa::cq_matmul_f32<K, N, Bits>(rows, xr.data(), codes, norms, cb, got.data());
    ExpectNearGeneric(got.data(), want.data(), want.size());

    // An output does not depend on the rows computed with it.
    for (int32_t r = 0; r < rows; ++r) {
      std::vector<float> one(N);
      isa::cq_matmul_f32<K, N, Bits>(1, xr.data() + static_cast<size_t>(r) * Kp, codes, norms, cb, one.data());
      ExpectBitEqual(one.data(), got.data() + static_cast<size_t>(r) * N, N);
    }

    std::vector<float> all(want.size(), -9.0f);
    isa::cq_logits_f32<K, N, Bits>(rows, true, xr.data(), codes, norms, cb, all.data());
    ExpectBitEqual(all.data(), got.data(), got.size());
    std::vector<float> last(static_cast<size_t>(N) + 1, -9.0f);
    isa::cq_logits_f32<K, N, Bits>(rows, false, xr.data(), codes, norms, cb, last.data());
    ExpectBitEqual(last.data(), got.data() + static_cast<size_t>(rows - 1) * N, N);
    EXPECT_EQ(last[N], -9.0f) << "wrote past N";
  }
}

template <int Bits>
void CheckMatmulShapes() {
  CheckMatmul<1, 3, Bits>();
  CheckMatmul<8, 5, Bits>();
  CheckMatmul<13, 33, Bits>();
  CheckMatmul<48, 1, Bits>();
  CheckMatmul<64, 67, Bits>();
  CheckMatmul<172, 33, Bits>();
  CheckMatmul<256, 6, Bits>();
  CheckMatmul<300, 34, Bits>();
  CheckMatmul<1024, 130, Bits>();
}

TEST(IsaCq, MatmulBits1) {
  SAGUARO_REQUIRE_ISA();
  CheckMatmulShapes<1>();
}
TEST(IsaCq, MatmulBits2) {
  SAGUARO_REQUIRE_ISA();
  CheckMatmulShapes<2>();
}
TEST(IsaCq, MatmulBits3) {
  SAGUARO_REQUIRE_ISA();
  CheckMatmulShapes<3>();
}
TEST(IsaCq, MatmulBits4) {
  SAGUARO_REQUIRE_ISA();
  CheckMatmulShapes<4>();
}

template <int D, int Bits>
void CheckEmbed() {
  constexpr int V = 29;
  const QTensor q = RandomQTensor(V, D, Bits, 500 * D + Bits);
  for (int32_t rows : {1, 3, 7}) {
    for (float scale : {1.0f, 0.5f, 11.3137085f}) {
      SCOPED_TRACE(testing::Message() << "D " << D << " Bits " << Bits << " rows " << rows << " scale " << scale);
      std::vector<int32_t> tok(rows);
      for (int32_t i = 0; i < rows; ++i) tok[i] = (i * 13 + rows + D) % V;
      tok[0] = V - 1;
      std::vector<float> want(static_cast<size_t>(rows) * D + 1, -9.0f), got(want.size(), -9.0f);
      generic::cq_embed_f32<D, Bits>(rows, tok.data(), q.codes.data(), q.norms.data(), q.codebook.data(), scale,
                                     want.data());
      isa::cq_embed_f32<D, Bits>(rows, tok.data(), q.codes.data(), q.norms.data(), q.codebook.data(), scale,
                                      got.data());
      ExpectBitEqual(got.data(), want.data(), want.size());
    }
  }
}

template <int Bits>
void CheckEmbedShapes() {
  CheckEmbed<8, Bits>();
  CheckEmbed<13, Bits>();
  CheckEmbed<48, Bits>();
  CheckEmbed<64, Bits>();
  CheckEmbed<172, Bits>();
  CheckEmbed<256, Bits>();
  CheckEmbed<300, Bits>();
}

TEST(IsaCq, EmbedBitIdentical) {
  SAGUARO_REQUIRE_ISA();
  CheckEmbedShapes<1>();
  CheckEmbedShapes<2>();
  CheckEmbedShapes<3>();
  CheckEmbedShapes<4>();
}

TEST(IsaCq, KernelsHeaderSelectsIsa) {
  // Built with -mavx2 -mfma, kernels.h names the x86_avx2 versions; on aarch64, the arm64_neon ones.
  EXPECT_EQ(&kernels::cq_rotate_f32<64>, &isa::cq_rotate_f32<64>);
  EXPECT_EQ((&kernels::cq_matmul_f32<64, 8, 4>), (&isa::cq_matmul_f32<64, 8, 4>));
  EXPECT_EQ((&kernels::cq_logits_f32<64, 8, 4>), (&isa::cq_logits_f32<64, 8, 4>));
  EXPECT_EQ((&kernels::cq_embed_f32<64, 4>), (&isa::cq_embed_f32<64, 4>));
}

}  // namespace
}  // namespace saguaro::kernels::test
