// Patch extraction in the orders of SigLIP, Qwen2-VL and Gemma 4 patch embeddings (patchify.h).
#include "saguaro/image/patchify.h"

#include <algorithm>

namespace saguaro::image {

void patchify(const float* chw, int height, int width, const PatchLayout& l, float* out) {
  const int p = l.patch, m = l.merge;
  const int grid_h = height / p, grid_w = width / p;
  const size_t plane = static_cast<size_t>(height) * width;
  for (int wy = 0; wy < grid_h / m; ++wy)
    for (int wx = 0; wx < grid_w / m; ++wx)
      for (int my = 0; my < m; ++my)
        for (int mx = 0; mx < m; ++mx) {
          const int top = (wy * m + my) * p, left = (wx * m + mx) * p;
          for (int c = 0; c < 3; ++c)
            for (int t = 0; t < l.temporal; ++t)
              for (int y = 0; y < p; ++y) {
                const float* src = chw + c * plane + static_cast<size_t>(top + y) * width + left;
                out = std::copy(src, src + p, out);
              }
        }
}

void patchify_channels_last(const float* hwc, int height, int width, int patch, float* out) {
  const size_t row = static_cast<size_t>(width) * 3, span = static_cast<size_t>(patch) * 3;
  for (int top = 0; top + patch <= height; top += patch)
    for (int left = 0; left + patch <= width; left += patch)
      for (int dy = 0; dy < patch; ++dy) {
        const float* src = hwc + (top + dy) * row + static_cast<size_t>(left) * 3;
        out = std::copy(src, src + span, out);
      }
}

}  // namespace saguaro::image
