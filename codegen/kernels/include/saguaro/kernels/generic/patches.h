// Kernels over an image's grid of patches (generic): the learned 2-D position embedding and the pooling of
// K×K blocks of patches into soft tokens (Gemma 4's vision tower).
//
// A patch's position is int32 positions[r][0] = x (its column in the patch grid), positions[r][1] = y (its row), as
// Gemma 4's image processor lays them out; a negative coordinate (the processor's padding, -1) counts as 0, as the
// model's clamp(min=0) makes it. The runtime checks the positions before it calls these kernels (each kernel states
// what it needs); the kernels do not check them again.
#pragma once

#include <cstdint>

namespace saguaro::kernels::generic {

/// A patch coordinate as the model reads it: negative (padding) counts as 0.
inline int32_t patch_coordinate(int32_t c) { return c < 0 ? 0 : c; }

/// x[r] += table[0][px] + table[1][py] in place, for x[rows][D] and the float32 table [2][P][D], (px, py) =
/// positions[r] with negative coordinates as 0; the two table rows are summed first, then added to x, as Hugging
/// Face computes the embedding (one-hot products summed over the two axes) and then h + pos. Contract: every
/// coordinate < P. (Hugging Face sets a padding patch's embedding to 0 instead; its rows are discarded.)
template <int D, int P>
inline void position_embed_2d_f32(int32_t rows, const int32_t* positions, const void* table, float* x) {
  const float* cols = static_cast<const float*>(table);
  const float* grid_rows = cols + static_cast<int64_t>(P) * D;
  for (int32_t r = 0; r < rows; ++r) {
    const int32_t* pr = positions + 2 * static_cast<int64_t>(r);
    const float* tx = cols + static_cast<int64_t>(patch_coordinate(pr[0])) * D;
    const float* ty = grid_rows + static_cast<int64_t>(patch_coordinate(pr[1])) * D;
    float* xr = x + static_cast<int64_t>(r) * D;
    for (int i = 0; i < D; ++i) xr[i] += tx[i] + ty[i];
  }
}

/// Average pooling of K×K blocks of patches (Gemma 4's Gemma4VisionPooler._avg_pool_by_positions, then its scale):
/// out[rows/(K·K)][D] starts at 0; patch r at (px, py) adds w·x[r] to out row (px/K) + (nW/K)·(py/K), with
/// nW = max px + 1 (the grid's width) and w = 1.0f/(K·K) (the float weight of Hugging Face's one-hot/k², so each
/// term is x·w, not x/(K·K)), patches in order; then out *= scale (sqrt(D) in the tower). The output rows are the
/// pooled grid row by row. Contract: rows is a multiple of K·K and the patches are a whole grid whose width and
/// height are multiples of K (Gemma 4's preprocessor resizes to multiples of K patches; the runtime checks), with
/// no padding patches (Hugging Face zeroes those first: they add nothing).
template <int D, int K>
inline void pool_patches_f32(int32_t rows, const int32_t* positions, const float* x, float scale, float* out) {
  static_assert(K > 0, "the pooling block has at least one patch");
  const int64_t out_rows = rows / (K * K);
  for (int64_t i = 0; i < out_rows * D; ++i) out[i] = 0.0f;
  int32_t width = 0;
  for (int32_t r = 0; r < rows; ++r) {
    const int32_t px = patch_coordinate(positions[2 * static_cast<int64_t>(r)]);
    if (px + 1 > width) width = px + 1;
  }
  const float w = 1.0f / static_cast<float>(K * K);
  for (int32_t r = 0; r < rows; ++r) {
    const int32_t* pr = positions + 2 * static_cast<int64_t>(r);
    const int32_t px = patch_coordinate(pr[0]);
    const int32_t py = patch_coordinate(pr[1]);
    float* o = out + (static_cast<int64_t>(px / K) + static_cast<int64_t>(width / K) * (py / K)) * D;
    const float* xr = x + static_cast<int64_t>(r) * D;
    for (int i = 0; i < D; ++i) o[i] += w * xr[i];
  }
  for (int64_t i = 0; i < out_rows * D; ++i) out[i] *= scale;
}

}  // namespace saguaro::kernels::generic
