// Cutting an image into the flattened patches a vision tower's patch embedding reads.
#pragma once

#include <cstddef>
#include <cstdint>

namespace saguaro::image {

/// How a tower groups pixels into patch vectors.
///  - patch: side of a square patch (SigLIP 14 or 16).
///  - merge: patches are listed merge×merge window by window (Qwen2-VL's spatial merge, 2);
///    1 lists them in plain row-major order.
///  - temporal: frames per patch; a still image is repeated (Qwen2-VL uses 2).
struct PatchLayout {
  int patch = 16;
  int merge = 1;
  int temporal = 1;
};

/// Number of values in one patch vector: 3 · temporal · patch².
inline int64_t patch_dim(const PatchLayout& l) { return int64_t{3} * l.temporal * l.patch * l.patch; }

/// Cuts one [3, H, W] image (H and W multiples of patch·merge) into (H/patch)·(W/patch) vectors
/// of patch_dim values written at `out`. Patch (gy, gx) comes in window order (gy / merge,
/// gx / merge, gy % merge, gx % merge); inside a vector values go channel, frame, row, column,
/// which is Conv2d's weight order [out, C, kh, kw] (Conv3d's [out, C, kt, kh, kw] for temporal).
void patchify(const float* chw, int height, int width, const PatchLayout& layout, float* out);

/// Cuts one [H, W, 3] image (H and W multiples of patch) into (H/patch)·(W/patch) vectors of
/// 3·patch² values at `out`, as SigLIP 2's and Gemma 4's convert_image_to_patches: patches in
/// row-major order, inside a vector row, column, channel (value (dy·patch + dx)·3 + c), which for
/// channels-last pixels is patch rows copied whole.
void patchify_channels_last(const float* hwc, int height, int width, int patch, float* out);

}  // namespace saguaro::image
