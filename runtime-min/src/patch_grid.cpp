#include "patch_grid.h"

#include <vector>

namespace saguaro {

bool check_patch_grid(const EncoderSpec& spec, const int32_t* positions, int32_t rows, std::string* err) {
  if (rows < 1 || rows > spec.max_rows)
    return *err = std::to_string(rows) + " patches: the vision tower takes 1 to " + std::to_string(spec.max_rows) +
                  " (its soft-token budget times " + std::to_string(spec.pooling * spec.pooling) + ")",
           false;
  int32_t columns = 0, lines = 0;
  for (int32_t r = 0; r < rows; ++r) {
    const int32_t x = positions[2 * r], y = positions[2 * r + 1];
    if (x < 0 || y < 0 || x >= spec.position_limit || y >= spec.position_limit)
      return *err = "patch " + std::to_string(r) + " at (" + std::to_string(x) + ", " + std::to_string(y) +
                    ") lies outside the position table's [0, " + std::to_string(spec.position_limit) + ")",
             false;
    columns = std::max(columns, x + 1), lines = std::max(lines, y + 1);
  }
  if (columns % spec.pooling != 0 || lines % spec.pooling != 0 || int64_t{columns} * lines != rows)
    return *err = "the " + std::to_string(rows) + " patches do not tile a " + std::to_string(columns) + " x " +
                  std::to_string(lines) + " grid whose sides are multiples of " + std::to_string(spec.pooling),
           false;
  std::vector<bool> seen(static_cast<size_t>(rows));
  for (int32_t r = 0; r < rows; ++r) {
    const size_t at = static_cast<size_t>(positions[2 * r + 1]) * columns + positions[2 * r];
    if (seen[at])
      return *err = "two patches at (" + std::to_string(positions[2 * r]) + ", " +
                    std::to_string(positions[2 * r + 1]) + ")",
             false;
    seen[at] = true;
  }
  return true;
}

}  // namespace saguaro
