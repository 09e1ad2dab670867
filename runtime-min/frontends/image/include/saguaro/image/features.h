// `saguaro features image` as one call that reports errors by value (for -fno-exceptions callers).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace saguaro::image {

struct FeaturesRequest {
  std::string image_path;
  std::string config_path;  // empty: SiglipImageProcessor defaults (224x224, bicubic, mean/std 0.5)
  bool decode_only = false;  // write the decoded uint8 [H, W, 3] pixels instead of features
  std::string output_path;
};

/// What was written.
struct FeaturesResult {
  std::string dtype;  // "uint8" or "float32"
  std::vector<int64_t> shape;
};

/// Decodes the image, preprocesses it as configured and writes the .npy. Never throws: on
/// failure returns false with a one-line message naming the offending file in `*err`, and the
/// output file is left untouched.
bool write_image_features(const FeaturesRequest& request, FeaturesResult* result, std::string* err) noexcept;

}  // namespace saguaro::image
