// check_patch_grid (runtime-min/src/patch_grid.h): the patches a vision tower accepts, and one refusal per way a
// grid can be wrong.
#include <gtest/gtest.h>

#include <vector>

#include "patch_grid.h"

namespace {
saguaro::EncoderSpec tower() {
  saguaro::EncoderSpec s{};
  s.max_rows = 36 * 9, s.pooling = 3, s.position_limit = 12;
  return s;
}

/// The (column, row) of every patch of a columns x rows grid, row by row.
std::vector<int32_t> grid(int32_t columns, int32_t rows) {
  std::vector<int32_t> p;
  for (int32_t y = 0; y < rows; ++y)
    for (int32_t x = 0; x < columns; ++x) p.insert(p.end(), {x, y});
  return p;
}

bool check(const std::vector<int32_t>& positions, std::string* err) {
  return saguaro::check_patch_grid(tower(), positions.data(), static_cast<int32_t>(positions.size() / 2), err);
}
}  // namespace

TEST(PatchGrid, WholeGridsInAnyOrder) {
  std::string err;
  EXPECT_TRUE(check(grid(3, 3), &err)) << err;
  EXPECT_TRUE(check(grid(12, 6), &err)) << err;
  const std::vector<int32_t> forward = grid(6, 3);
  std::vector<int32_t> backward;
  for (size_t i = forward.size(); i >= 2; i -= 2) backward.insert(backward.end(), {forward[i - 2], forward[i - 1]});
  EXPECT_TRUE(check(backward, &err)) << err;
}

TEST(PatchGrid, RefusesEveryBrokenGrid) {
  std::string err;
  EXPECT_FALSE(check({}, &err));
  EXPECT_EQ(err, "0 patches: the vision tower takes 1 to 324 (its soft-token budget times 9)");
  EXPECT_FALSE(check(grid(15, 3), &err));  // 45 patches fit the budget, but column 12 is past the table
  EXPECT_EQ(err, "patch 12 at (12, 0) lies outside the position table's [0, 12)");
  EXPECT_FALSE(check(grid(4, 3), &err));  // 4 columns: no whole 3 x 3 blocks
  EXPECT_EQ(err, "the 12 patches do not tile a 4 x 3 grid whose sides are multiples of 3");
  std::vector<int32_t> twice = grid(3, 3);
  twice[2] = 0;  // patch 1 at (0, 0) again, (1, 0) missing
  EXPECT_FALSE(check(twice, &err));
  EXPECT_EQ(err, "two patches at (0, 0)");
  std::vector<int32_t> negative = grid(3, 3);
  negative[1] = -1;
  EXPECT_FALSE(check(negative, &err));
  EXPECT_EQ(err, "patch 0 at (0, -1) lies outside the position table's [0, 12)");
  EXPECT_FALSE(check(grid(12, 30), &err));  // 360 patches: above the budget of 324
  EXPECT_EQ(err, "360 patches: the vision tower takes 1 to 324 (its soft-token budget times 9)");
}
