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
  std::vector<float> cb(1 << Bits);
  for (auto& c : cb) c = std::uniform_real_distribution<float>(-0.3f, 0.3f)(gen);
  std::vector<float> x(rows * cq::padded_k(K));
  for (auto& v : x) v = std::normal_distribution<float>(0.0f, 1.0f)(gen);
  std::vector<uint8_t> xq(rows * cq::act_row_bytes(K));
  generic::cq_quantize_act_i8<K>(rows, x.data(), xq.data());
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

TEST(IsaCqI8, KernelsHeaderSelectsIsa) {
  EXPECT_EQ(&kernels::cq_quantize_act_i8<64>, &isa_i8::cq_quantize_act_i8<64>);
  constexpr int kPlanar = cq::kLayoutPlanar;
  EXPECT_EQ((&kernels::cq_matmul_i8<64, 8, 4, kPlanar>), (&isa_i8::cq_matmul_i8<64, 8, 4, kPlanar>));
}

}  // namespace
}  // namespace saguaro::kernels::test

#endif  // SAGUARO_KERNELS_HAVE_CQ_I8
