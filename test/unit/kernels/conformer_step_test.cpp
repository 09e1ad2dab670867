// The step forms of the conformer kernels (generic/conformer.h) against their whole-clip forms: a clip cut into
// steps of any sizes, each step reading the rows before it from the kernel's ring, gives the whole-clip result bit
// for bit. Rows of a ring that are not valid hold NaN, so a step that read one would show it.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "saguaro/kernels/kernels.h"
#include "test_util.h"

namespace saguaro::kernels::test {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

void ExpectBitEqual(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  EXPECT_EQ(std::memcmp(got.data(), want.data(), sizeof(float) * want.size()), 0);
  for (size_t i = 0; i < want.size(); ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(float)) != 0) {
      ADD_FAILURE() << "first difference at " << i << ": " << got[i] << " vs " << want[i];
      return;
    }
}

/// Step sizes that cut `total` rows: `sizes` in turn (repeating the last) with the remainder as the last step.
std::vector<int> Steps(int total, std::vector<int> sizes) {
  std::vector<int> out;
  for (int done = 0, i = 0; done < total; ++i) {
    const int n = std::min(sizes[std::min<size_t>(i, sizes.size() - 1)], total - done);
    out.push_back(n);
    done += n;
  }
  return out;
}

/// subsample_conv_step_f32 over steps of an even number of input rows (the clip's last step may be odd).
template <int F, int Cin, int Cout>
void CheckSubsampleSteps(int rows, const std::vector<int>& sizes) {
  SCOPED_TRACE(testing::Message() << "F " << F << " Cin " << Cin << " rows " << rows << " first step " << sizes[0]);
  constexpr int kW = F * Cin, kOut = (F + 1) / 2 * Cout;
  const auto x = RandomFloats(static_cast<size_t>(rows) * kW, 700 + rows);
  const auto w = RandomFloats(static_cast<size_t>(Cout) * Cin * 9, 701);
  const auto norm = RandomFloats(Cout, 702, 0.5f, 1.5f);
  std::vector<float> want(static_cast<size_t>(rows + 1) / 2 * kOut);
  generic::subsample_conv_f32<F, Cin, Cout>(rows, x.data(), w.data(), norm.data(), 1e-6f, want.data());

  std::vector<float> got(want.size(), kNaN), ring(kW, kNaN);
  int done = 0;
  for (int n : Steps(rows, sizes)) {
    generic::subsample_conv_step_f32<F, Cin, Cout>(n, done, ring.data(), x.data() + size_t(done) * kW,
                                                   w.data(), norm.data(), 1e-6f, got.data() + size_t(done / 2) * kOut);
    done += n;
  }
  ExpectBitEqual(got, want);
}

TEST(ConformerStep, SubsampleConv) {
  for (int rows : {1, 2, 7, 24, 37}) {
    CheckSubsampleSteps<8, 1, 4>(rows, {2});
    CheckSubsampleSteps<8, 1, 4>(rows, {4});
    CheckSubsampleSteps<8, 1, 4>(rows, {6, 10, 2});
    CheckSubsampleSteps<8, 1, 4>(rows, {rows});
    CheckSubsampleSteps<4, 4, 3>(rows, {2});
    CheckSubsampleSteps<5, 3, 2>(rows, {8, 4});
  }
}

/// local_attention_step_f32 over steps of any sizes against local_attention_f32 on the whole clip.
template <int H, int HD, int Past, int Future, int TableEnd>
void CheckAttentionSteps(int rows, const std::vector<int>& sizes) {
  SCOPED_TRACE(testing::Message() << "Past " << Past << " rows " << rows << " first step " << sizes[0]);
  constexpr int kD = H * HD;
  const auto q = RandomFloats(static_cast<size_t>(rows) * kD, 710 + rows, -2.0f, 2.0f);
  const auto k = RandomFloats(q.size(), 711 + rows, -2.0f, 2.0f);
  const auto v = RandomFloats(q.size(), 712 + rows);
  const auto pds = RandomFloats(HD, 713);
  const auto table = RandomFloats(static_cast<size_t>(TableEnd + 1) * kD, 714, -2.0f, 2.0f);
  std::vector<float> want(q.size());
  generic::local_attention_f32<H, HD, Past, Future, TableEnd>(rows, q.data(), k.data(), v.data(), pds.data(),
                                                              table.data(), 3.0f, want.data());

  constexpr int kCap = Past - 1;
  std::vector<float> got(want.size(), kNaN), ring_k(size_t(kCap) * kD, kNaN), ring_v(ring_k);
  int done = 0;
  for (int n : Steps(rows, sizes)) {
    const size_t at = size_t(done) * kD;
    generic::local_attention_step_f32<H, HD, Past, Future, TableEnd>(
        n, done, ring_k.data(), ring_v.data(), q.data() + at, k.data() + at, v.data() + at,
        pds.data(), table.data(), 3.0f, got.data() + at);
    done += n;
  }
  ExpectBitEqual(got, want);
}

TEST(ConformerStep, LocalAttention) {
  for (int rows : {1, 3, 12, 31}) {
    for (const std::vector<int>& sizes : std::vector<std::vector<int>>{{1}, {2}, {3}, {5, 1, 7}, {rows}}) {
      CheckAttentionSteps<2, 8, 5, 0, 4>(rows, sizes);      // the tiny models' geometry: chunk 4, past 5
      CheckAttentionSteps<2, 8, 12, 0, 12>(rows, sizes);    // E2B's: chunk 12, past 12, table end 12
      CheckAttentionSteps<3, 4, 4, 1, 4>(rows, sizes);      // future 1: still no later key
      CheckAttentionSteps<1, 4, 1, 0, 2>(rows, sizes);      // past 1: each frame sees only itself, no ring
    }
  }
}

/// gated_causal_conv_step_f32 over steps of any sizes against gated_causal_conv_f32 on the whole clip.
template <int N, int K>
void CheckConvSteps(int rows, const std::vector<int>& sizes) {
  SCOPED_TRACE(testing::Message() << "K " << K << " rows " << rows << " first step " << sizes[0]);
  const auto x = RandomFloats(static_cast<size_t>(rows) * 2 * N, 720 + rows, -3.0f, 3.0f);
  const auto w = RandomFloats(static_cast<size_t>(N) * K, 721);
  std::vector<float> g(static_cast<size_t>(rows) * N), want(g.size());
  generic::gated_causal_conv_f32<N, K>(rows, x.data(), w.data(), g.data(), want.data());

  constexpr int kCap = K - 1;
  std::vector<float> got(want.size(), kNaN), ring(size_t(kCap) * N, kNaN), step_g(g.size());
  int done = 0;
  for (int n : Steps(rows, sizes)) {
    generic::gated_causal_conv_step_f32<N, K>(n, done, ring.data(), x.data() + size_t(done) * 2 * N,
                                              w.data(), step_g.data(), got.data() + size_t(done) * N);
    done += n;
  }
  ExpectBitEqual(got, want);
}

TEST(ConformerStep, GatedCausalConv) {
  for (int rows : {1, 3, 4, 5, 29}) {
    for (const std::vector<int>& sizes : std::vector<std::vector<int>>{{1}, {2}, {4}, {3, 1, 6}, {rows}}) {
      CheckConvSteps<6, 5>(rows, sizes);
      CheckConvSteps<3, 2>(rows, sizes);
      CheckConvSteps<4, 1>(rows, sizes);
    }
  }
}

TEST(ConformerStep, RingKeepsTheLastRows) {
  // Cap 3, width 2: rows pushed one, then four, then two at a time.
  std::vector<float> ring(6, kNaN);
  const std::vector<float> a = {1, 1}, b = {2, 2, 3, 3, 4, 4, 5, 5}, c = {6, 6, 7, 7};
  EXPECT_EQ((generic::push_ring_rows_f32<3, 2>(ring.data(), 0, a.data(), 1)), 1);
  EXPECT_EQ(ring[4], 1.0f);
  EXPECT_EQ(ring[5], 1.0f);
  EXPECT_EQ((generic::push_ring_rows_f32<3, 2>(ring.data(), 1, b.data(), 4)), 3);
  EXPECT_EQ(ring, (std::vector<float>{3, 3, 4, 4, 5, 5}));
  EXPECT_EQ((generic::push_ring_rows_f32<3, 2>(ring.data(), 3, c.data(), 2)), 3);
  EXPECT_EQ(ring, (std::vector<float>{5, 5, 6, 6, 7, 7}));
  EXPECT_EQ((generic::push_ring_rows_f32<3, 2>(ring.data(), 3, c.data(), 0)), 3);
  EXPECT_EQ(ring, (std::vector<float>{5, 5, 6, 6, 7, 7}));
}

}  // namespace
}  // namespace saguaro::kernels::test
