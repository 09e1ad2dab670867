// ISA int8-activation CQ kernels against the generic ones, bit for bit: activation quantization and the integer
// codebook matmul/logits, for every bit width, both layouts, decode and prefill row counts and ragged shapes.
#include <random>
#include <vector>

#include "isa_test_util.h"
#include "saguaro/kernels/cq_format.h"

#if defined(SAGUARO_KERNELS_HAVE_CQ_I8)

namespace saguaro::kernels::test {
namespace {

// The int8 CQ kernels come in levels and kernels.h selects the highest the target enables: on aarch64
// arm64/i8mm > arm64/dotprod > arm64/neon (test/cross builds these tests once per level), on x86
// x86/avx512vnni > x86/avx2 (kernels_avx512vnni_tests, kernels_avx2_tests). Test that one.
#if defined(SAGUARO_KERNELS_X86_AVX512VNNI)
namespace isa_i8 = saguaro::kernels::x86_avx512vnni;
#elif defined(SAGUARO_KERNELS_ARM64_I8MM)
namespace isa_i8 = saguaro::kernels::arm64_i8mm;
#elif defined(SAGUARO_KERNELS_ARM64_DOTPROD)
namespace isa_i8 = saguaro::kernels::arm64_dotprod;
#else
namespace isa_i8 = isa;
#endif

template <int K>
void CheckQuantize(int rows) {
  SCOPED_TRACE(testing::Message() << "K " << K << " rows " << rows);
  std::mt19937 gen(K + rows);
  std::vector<float> x(rows * cq::padded_k(K));
  for (auto& v : x) v = std::normal_distribution<float>(0.0f, 3.0f)(gen);
  for (int i = 0; i < cq::group_size(K) && rows > 1; ++i) x[cq::padded_k(K) + i] = 0.0f;  // a zero group
  std::vector<uint8_t> want(rows * cq::act_row_bytes(K)), got(want.size());
  generic::cq_quantize_act_i8<K>(rows, x.data(), want.data());
  isa_i8::cq_quantize_act_i8<K>(rows, x.data(), got.data());
  EXPECT_EQ(got, want);
}

TEST(IsaCqI8, QuantizeActivationsBitIdentical) {
  SAGUARO_REQUIRE_ISA();
  for (int rows : {1, 2, 5}) {
    CheckQuantize<8>(rows);
    CheckQuantize<48>(rows);
    CheckQuantize<64>(rows);
    CheckQuantize<172>(rows);
    CheckQuantize<1024>(rows);
    CheckQuantize<3072>(rows);
  }
}

template <int K, int N, int Bits, int Layout>
void CheckMatmul() {
  SCOPED_TRACE(testing::Message() << "K " << K << " N " << N << " bits " << Bits << " layout " << Layout);
  std::mt19937 gen(K * 7 + N * 3 + Bits);
  constexpr int G = cq::groups(K);
  std::vector<uint8_t> codes(N * cq::row_code_bytes(K, Bits));
  for (auto& b : codes) b = static_cast<uint8_t>(gen());
  std::vector<uint16_t> norms(N * G);
  for (auto& h : norms) {
    const uint32_t pick = gen() % 13;
    h = pick == 0 ? uint16_t{0} : cq::float_to_half(std::uniform_real_distribution<float>(0.05f, 4.0f)(gen));
  }
  std::vector<float> cb(1 << Bits);
  for (auto& c : cb) c = std::uniform_real_distribution<float>(-0.3f, 0.3f)(gen);
  for (int rows : {1, 2, 3, 4, 5, 6, 7, 8, 17}) {
    SCOPED_TRACE(testing::Message() << "rows " << rows);
    std::vector<float> x(rows * cq::padded_k(K));
    for (auto& v : x) v = std::normal_distribution<float>(0.0f, 1.0f)(gen);
    std::vector<uint8_t> xq(rows * cq::act_row_bytes(K));
    generic::cq_quantize_act_i8<K>(rows, x.data(), xq.data());
    std::vector<float> want(rows * N), got(rows * N, -1.0f);
    generic::cq_matmul_i8<K, N, Bits, Layout>(rows, xq.data(), codes.data(), norms.data(), cb.data(), want.data());
    isa_i8::cq_matmul_i8<K, N, Bits, Layout>(rows, xq.data(), codes.data(), norms.data(), cb.data(), got.data());
    ExpectBitEqual(got.data(), want.data(), want.size());
    std::vector<float> last(N, -1.0f);
    kernels::cq_logits_i8<K, N, Bits, Layout>(rows, false, xq.data(), codes.data(), norms.data(), cb.data(),
                                              last.data());
    ExpectBitEqual(last.data(), want.data() + (rows - 1) * N, N);
  }
}

template <int Layout>
void CheckAllShapes() {
  CheckMatmul<64, 13, 4, Layout>();
  CheckMatmul<128, 8, 4, Layout>();
  CheckMatmul<1024, 37, 4, Layout>();
  CheckMatmul<3072, 9, 4, Layout>();
  CheckMatmul<172, 21, 4, Layout>();
  CheckMatmul<1024, 19, 3, Layout>();
  CheckMatmul<64, 11, 3, Layout>();
  CheckMatmul<1024, 19, 2, Layout>();
  CheckMatmul<200, 6, 2, Layout>();
  CheckMatmul<1024, 10, 1, Layout>();
  CheckMatmul<32, 5, 1, Layout>();
  CheckMatmul<16, 9, 1, Layout>();
  CheckMatmul<64, 12, 1, Layout>();
  CheckMatmul<24, 3, 4, Layout>();
}

TEST(IsaCqI8, MatmulPlanarBitIdentical) {
  SAGUARO_REQUIRE_ISA();
  CheckAllShapes<cq::kLayoutPlanar>();
}

TEST(IsaCqI8, MatmulPanel8BitIdentical) {
  SAGUARO_REQUIRE_ISA();
  CheckAllShapes<cq::kLayoutPlanarPanel8>();
}

// Row n's norm is the binary16 pattern n: zeros, subnormals, normals, infinities and NaNs — signalling ones too,
// which the ISA kernels convert with F16C (quietened) and the generic one bit by bit (not): the products are still
// the same bits, because the multiplication quietens a signalling NaN the same way. One group per row (K = 128), so
// each output is one product and no two NaNs meet in a sum.
template <int Bits, int Layout>
void CheckEveryNormPattern() {
  SCOPED_TRACE(testing::Message() << "bits " << Bits << " layout " << Layout);
  constexpr int K = 128, N = 1 << 16;
  std::mt19937 gen(Bits * 11 + Layout);
  std::vector<uint8_t> codes(size_t{N} * cq::row_code_bytes(K, Bits));
  for (auto& b : codes) b = static_cast<uint8_t>(gen());
  std::vector<uint16_t> norms(N);
  for (int n = 0; n < N; ++n) norms[n] = static_cast<uint16_t>(n);
  std::vector<float> cb(1 << Bits);
  for (auto& c : cb) c = std::uniform_real_distribution<float>(-0.3f, 0.3f)(gen);
  for (int rows : {1, 5}) {
    SCOPED_TRACE(testing::Message() << "rows " << rows);
    std::vector<float> x(rows * cq::padded_k(K));
    for (auto& v : x) v = std::normal_distribution<float>(0.0f, 1.0f)(gen);
    std::vector<uint8_t> xq(rows * cq::act_row_bytes(K));
    generic::cq_quantize_act_i8<K>(rows, x.data(), xq.data());
    std::vector<float> want(size_t{N} * rows), got(want.size(), -1.0f);
    generic::cq_matmul_i8<K, N, Bits, Layout>(rows, xq.data(), codes.data(), norms.data(), cb.data(), want.data());
    isa_i8::cq_matmul_i8<K, N, Bits, Layout>(rows, xq.data(), codes.data(), norms.data(), cb.data(), got.data());
    ExpectBitEqual(got.data(), want.data(), want.size());
  }
}

TEST(IsaCqI8, EveryNormPatternBitIdentical) {
  SAGUARO_REQUIRE_ISA();
  CheckEveryNormPattern<4, cq::kLayoutPlanarPanel8>();
  CheckEveryNormPattern<2, cq::kLayoutPlanarPanel8>();
  CheckEveryNormPattern<3, cq::kLayoutPlanar>();
}

std::vector<float> RandomCodebook(int bits, std::mt19937& gen) {
  std::vector<float> cb(1 << bits);
  for (auto& c : cb) c = std::uniform_real_distribution<float>(-0.3f, 0.3f)(gen);
  return cb;
}

// `rows` rows of standard normal activations, quantized by the generic kernel.
template <int K>
std::vector<uint8_t> RandomQuantizedActivations(int rows, std::mt19937& gen) {
  std::vector<float> x(rows * cq::padded_k(K));
  for (auto& v : x) v = std::normal_distribution<float>(0.0f, 1.0f)(gen);
  std::vector<uint8_t> xq(rows * cq::act_row_bytes(K));
  generic::cq_quantize_act_i8<K>(rows, x.data(), xq.data());
  return xq;
}

// The column ranges of 1, 2, 3 and 5 threads (ReversedPool, test_util.h) must give the single-threaded result bit
// for bit.
template <int K, int N, int Bits, int Layout>
void CheckThreadSplit(int rows) {
  SCOPED_TRACE(testing::Message() << "K " << K << " N " << N << " bits " << Bits << " rows " << rows);
  std::mt19937 gen(K + N + rows);
  constexpr int G = cq::groups(K);
  std::vector<uint8_t> codes(N * cq::row_code_bytes(K, Bits));
  for (auto& b : codes) b = static_cast<uint8_t>(gen());
  std::vector<uint16_t> norms(N * G, cq::float_to_half(0.7f));
  const std::vector<float> cb = RandomCodebook(Bits, gen);
  const std::vector<uint8_t> xq = RandomQuantizedActivations<K>(rows, gen);
  std::vector<float> want(rows * N);
  isa_i8::cq_matmul_i8<K, N, Bits, Layout>(rows, xq.data(), codes.data(), norms.data(), cb.data(), want.data());
  for (int32_t threads : {2, 3, 5}) {
    ReversedPool pool(threads);
    std::vector<float> got(rows * N, -1.0f);
    isa_i8::cq_matmul_i8<K, N, Bits, Layout>(rows, xq.data(), codes.data(), norms.data(), cb.data(), got.data(),
                                             &pool.par);
    ExpectBitEqual(got.data(), want.data(), want.size());
  }
}

TEST(IsaCqI8, ThreadSplitBitIdentical) {
  SAGUARO_REQUIRE_ISA();
  for (int rows : {1, 6}) {
    CheckThreadSplit<1024, 203, 4, cq::kLayoutPlanarPanel8>(rows);
    CheckThreadSplit<1024, 130, 2, cq::kLayoutPlanarPanel8>(rows);
    CheckThreadSplit<1024, 97, 3, cq::kLayoutLsb>(rows);
  }
}

TEST(IsaCqI8, MatmulLsbBitIdentical) {
  SAGUARO_REQUIRE_ISA();
  CheckAllShapes<cq::kLayoutLsb>();
}

// Fused products: cq_matmul3_i8 / cq_matmul2_i8 give each product's generic cq_matmul_i8 result bit for
// bit at 1, 2, 3 and 5 threads, for row counts that are not multiples of 8 (a product's rows start on a panel in
// the fused row space), decode and prefill row counts, and write nothing outside their outputs.
template <int K, int N0, int N1, int N2, int Bits, int Layout>
void CheckProducts(int rows) {
  SCOPED_TRACE(testing::Message() << "K " << K << " N " << N0 << "," << N1 << "," << N2 << " bits " << Bits
                                  << " layout " << Layout << " rows " << rows);
  std::mt19937 gen(K + N0 * 5 + N1 * 3 + N2 + rows);
  constexpr int G = cq::groups(K);
  constexpr int kN[] = {N0, N1, N2};
  std::vector<uint8_t> codes[3];
  std::vector<uint16_t> norms[3];
  for (int i = 0; i < 3; ++i) {
    codes[i].resize(kN[i] * cq::row_code_bytes(K, Bits));
    for (auto& b : codes[i]) b = static_cast<uint8_t>(gen());
    norms[i].resize(kN[i] * G);
    for (auto& h : norms[i]) h = cq::float_to_half(std::uniform_real_distribution<float>(0.05f, 4.0f)(gen));
  }
  const std::vector<float> cb = RandomCodebook(Bits, gen);
  const std::vector<uint8_t> xq = RandomQuantizedActivations<K>(rows, gen);
  std::vector<float> want[3];
  want[0].resize(rows * N0), want[1].resize(rows * N1), want[2].resize(rows * N2);
  generic::cq_matmul_i8<K, N0, Bits, Layout>(rows, xq.data(), codes[0].data(), norms[0].data(), cb.data(), want[0].data());
  generic::cq_matmul_i8<K, N1, Bits, Layout>(rows, xq.data(), codes[1].data(), norms[1].data(), cb.data(), want[1].data());
  generic::cq_matmul_i8<K, N2, Bits, Layout>(rows, xq.data(), codes[2].data(), norms[2].data(), cb.data(), want[2].data());
  // Each output with one sentinel float on either side: `fill` resets the first n, `expect` checks them.
  constexpr float kSentinel = -12345.0f;
  std::vector<float> got[3];
  auto fill = [&](int n) {
    for (int i = 0; i < n; ++i) got[i].assign(rows * kN[i] + 2, kSentinel);
  };
  auto expect = [&](int n) {
    for (int i = 0; i < n; ++i) {
      ExpectBitEqual(got[i].data() + 1, want[i].data(), want[i].size());
      EXPECT_EQ(got[i].front(), kSentinel);
      EXPECT_EQ(got[i].back(), kSentinel);
    }
  };
  for (int32_t threads : {1, 2, 3, 5}) {
    SCOPED_TRACE(testing::Message() << "threads " << threads);
    ReversedPool pool(threads);
    const Parallel* par = threads == 1 ? nullptr : &pool.par;
    fill(3);
    isa_i8::cq_matmul3_i8<K, N0, N1, N2, Bits, Layout>(rows, xq.data(), cb.data(), codes[0].data(), norms[0].data(),
                                                       got[0].data() + 1, codes[1].data(), norms[1].data(),
                                                       got[1].data() + 1, codes[2].data(), norms[2].data(),
                                                       got[2].data() + 1, par);
    expect(3);
    fill(2);
    isa_i8::cq_matmul2_i8<K, N0, N1, Bits, Layout>(rows, xq.data(), cb.data(), codes[0].data(), norms[0].data(),
                                                   got[0].data() + 1, codes[1].data(), norms[1].data(),
                                                   got[1].data() + 1, par);
    expect(2);
  }
}

TEST(IsaCqI8, FusedProductsBitIdentical) {
  SAGUARO_REQUIRE_ISA();
  for (int rows : {1, 2, 5}) {
    CheckProducts<1024, 203, 64, 37, 4, cq::kLayoutPlanarPanel8>(rows);
    CheckProducts<1024, 16, 130, 9, 2, cq::kLayoutPlanarPanel8>(rows);
    CheckProducts<3072, 40, 24, 8, 3, cq::kLayoutPlanarPanel8>(rows);
    CheckProducts<256, 13, 21, 5, 4, cq::kLayoutLsb>(rows);
    CheckProducts<256, 24, 17, 8, 1, cq::kLayoutPlanarPanel8>(rows);
  }
}

TEST(IsaCqI8, KernelsHeaderSelectsIsa) {
  EXPECT_EQ(&kernels::cq_quantize_act_i8<64>, &isa_i8::cq_quantize_act_i8<64>);
  constexpr int kPlanar = cq::kLayoutPlanar;
  EXPECT_EQ((&kernels::cq_matmul_i8<64, 8, 4, kPlanar>), (&isa_i8::cq_matmul_i8<64, 8, 4, kPlanar>));
}

}  // namespace
}  // namespace saguaro::kernels::test

#endif  // SAGUARO_KERNELS_HAVE_CQ_I8
