// position_embed_2d_f32 and pool_patches_f32 against double-precision loops written from Gemma 4's rules
// (modeling_gemma4.py: Gemma4VisionPatchEmbedder's position table, Gemma4VisionPooler's K×K block mean and scale).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "saguaro/kernels/kernels.h"
#include "test_util.h"

namespace saguaro::kernels::test {
namespace {

/// The positions of a grid of w × h patches as Gemma 4's processor lists them: row by row, [x, y] per patch.
std::vector<int32_t> GridPositions(int w, int h) {
  std::vector<int32_t> pos;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) pos.push_back(x), pos.push_back(y);
  return pos;
}

/// Checks position_embed_2d_f32<D, P> on rows at `positions` ([x, y] per row; negative coordinates read row 0).
template <int D, int P>
void CheckPositionEmbed(const std::vector<int32_t>& positions) {
  const int rows = static_cast<int>(positions.size() / 2);
  auto x = RandomFloats(static_cast<size_t>(rows) * D, 210 + D);
  const auto table = RandomFloats(2 * static_cast<size_t>(P) * D, 211 + P);
  std::vector<double> want(x.size());
  for (int r = 0; r < rows; ++r) {
    const int px = std::max(positions[2 * r], 0), py = std::max(positions[2 * r + 1], 0);
    for (int i = 0; i < D; ++i)
      want[r * D + i] = x[r * D + i] + (static_cast<double>(table[px * D + i]) + table[(P + py) * D + i]);
  }
  position_embed_2d_f32<D, P>(rows, positions.data(), table.data(), x.data());
  ExpectClose(x, want);
}

TEST(PositionEmbed2dF32, GridRows) {
  CheckPositionEmbed<16, 8>(GridPositions(4, 3));
  CheckPositionEmbed<24, 40>({0, 0, 39, 0, 0, 39, 39, 39, 17, 5});  // the table's last rows on both axes
}

TEST(PositionEmbed2dF32, PaddingReadsPositionZero) {
  CheckPositionEmbed<8, 6>({-1, -1, 2, 3, -1, -1});
  CheckPositionEmbed<8, 6>({-1, 4, 5, -1});
}

/// Gemma 4's pooler in double: the mean of each K×K block of the w × h grid times `scale`, blocks row by row.
std::vector<double> RefPool(const std::vector<float>& x, const std::vector<int32_t>& positions, int d, int k, int w,
                            double scale) {
  const int bw = w / k;
  const int rows = static_cast<int>(positions.size() / 2);
  std::vector<double> out(static_cast<size_t>(rows / (k * k)) * d, 0.0);
  for (int r = 0; r < rows; ++r) {
    const int block = positions[2 * r] / k + bw * (positions[2 * r + 1] / k);
    for (int i = 0; i < d; ++i) out[block * d + i] += x[r * d + i];
  }
  for (auto& v : out) v = v / (k * k) * scale;
  return out;
}

/// Checks pool_patches_f32<D, K> on a w × h grid, the patches in the processor's order or shuffled.
template <int D, int K>
void CheckPool(int w, int h, float scale, bool shuffled) {
  SCOPED_TRACE(testing::Message() << "grid " << w << "x" << h << " K " << K << " shuffled " << shuffled);
  std::vector<int32_t> positions = GridPositions(w, h);
  if (shuffled) {
    std::vector<int> order(w * h);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), std::mt19937(5));
    std::vector<int32_t> p(positions.size());
    for (size_t r = 0; r < order.size(); ++r)
      p[2 * r] = positions[2 * order[r]], p[2 * r + 1] = positions[2 * order[r] + 1];
    positions = p;
  }
  const int rows = w * h;
  const auto x = RandomFloats(static_cast<size_t>(rows) * D, 220 + w + h, -2.0f, 2.0f);
  std::vector<float> out(static_cast<size_t>(rows / (K * K)) * D, std::nanf(""));
  pool_patches_f32<D, K>(rows, positions.data(), x.data(), scale, out.data());
  ExpectClose(out, RefPool(x, positions, D, K, w, scale));
}

TEST(PoolPatchesF32, BlocksOfThree) {
  CheckPool<16, 3>(9, 6, std::sqrt(16.0f), false);  // landscape: 3 × 2 soft tokens
  CheckPool<16, 3>(3, 12, std::sqrt(16.0f), false);  // portrait: 1 × 4
  CheckPool<8, 3>(6, 6, 27.712812f, true);            // by position, not by order
}

TEST(PoolPatchesF32, OtherBlockSizes) {
  CheckPool<4, 2>(4, 2, 1.0f, false);
  CheckPool<4, 1>(3, 2, 2.0f, true);  // K = 1: each patch is its own token, scaled
}

}  // namespace
}  // namespace saguaro::kernels::test
