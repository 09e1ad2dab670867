// `saguaro features image` as one call that reports errors by value (for -fno-exceptions callers).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace saguaro::image {

struct FeaturesRequest {
  std::string image_path;  // a PNG or JPEG; with resized_pixels, an [H, W, 3] .npy (pixels_npy.h)
  std::string config_path;  // empty: SiglipImageProcessor defaults (224x224, bicubic, mean/std 0.5)
  bool decode_only = false;  // write the decoded uint8 [H, W, 3] pixels instead of features
  std::string output_path;
  bool resized_only = false;   // write the resized uint8 [H', W', 3] pixels instead of features
  int max_soft_tokens = 0;     // Gemma 4: this budget instead of the config's; 0 keeps the config's
  std::string positions_path;  // Gemma 4: also write the patch positions, int32 [n, 2]; empty: not
  bool resized_pixels = false;  // Gemma 4: image_path holds pixels already resized, uint8 or float32 in [0, 1]
};

/// What was written.
struct FeaturesResult {
  std::string dtype;  // "uint8" or "float32"
  std::vector<int64_t> shape;
  std::vector<int64_t> positions_shape;  // [n, 2] when positions were written
};

/// Decodes the image, preprocesses it as configured and writes the .npy (and the positions). Never
/// throws: on failure returns false with a one-line message naming the offending file in `*err`,
/// and the output files are left untouched.
bool write_image_features(const FeaturesRequest& request, FeaturesResult* result, std::string* err) noexcept;

}  // namespace saguaro::image
