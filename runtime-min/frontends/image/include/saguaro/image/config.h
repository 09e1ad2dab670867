// Image preprocessing settings, read from a model's preprocessor_config.json or processor_config.json.
#pragma once

#include <cstdint>
#include <string>

#include "saguaro/image/pan_and_scan.h"
#include "saguaro/image/resample_coeffs.h"
#include "saguaro/image/smart_resize.h"
#include "saguaro/image/soft_token_resize.h"
#include "saguaro/image/to_chw.h"

namespace saguaro::image {

/// How the decoded image is brought to the tower's input size.
enum class ResizeMode {
  Fixed,         // size {height, width}: SigLIP, Gemma 3
  ShortestEdge,  // size {shortest_edge}, aspect kept, then an optional centre crop: CLIP
  Smart,         // smart_resize into [min_pixels, max_pixels] on a patch·merge grid: Qwen2-VL
  SoftTokens,    // soft_token_size to max_soft_tokens, aspect kept: Gemma 4
};

/// The subset of HF image-processor settings Saguaro implements. Anything else that would
/// change the pixels (another resample filter, padding, image splitting) is refused.
struct ImageConfig {
  std::string processor = "SiglipImageProcessor";  // image_processor_type, "Fast" / "Pil" suffix dropped
  bool do_resize = true;
  ResizeMode mode = ResizeMode::Fixed;
  Size size = {224, 224};       // Fixed
  int shortest_edge = 0;        // ShortestEdge
  bool do_center_crop = false;  // ShortestEdge
  Size crop_size = {224, 224};
  int64_t min_pixels = 0, max_pixels = 0;  // Smart
  int max_soft_tokens = 280, pooling_kernel_size = 3;  // SoftTokens, with patch_size
  Resample resample = Resample::Bicubic;
  Normalization norm;
  int patch_size = 0;  // 0: output pixel planes [n, 3, H, W]; else patches [N, 3 · temporal · patch²]
  int merge_size = 1;
  int temporal_patch_size = 1;
  bool do_pan_and_scan = false;
  PanAndScanConfig pan_and_scan;

  SoftTokenBudget soft_token_budget() const { return {max_soft_tokens, pooling_kernel_size, patch_size}; }

  /// Reads preprocessor_config.json, or the "image_processor" object nested in a
  /// processor_config.json. Missing or null keys take the defaults of the named HF processor
  /// (SiglipImageProcessor when the type is absent); an unknown processor type, a value of the
  /// wrong type or range, or an unsupported option throws ImageError "PATH: KEY: problem".
  static ImageConfig from_preprocessor_json(const std::string& path);
  /// The same from JSON text; `name` starts every error message.
  static ImageConfig from_json_text(const std::string& text, const std::string& name);
};

}  // namespace saguaro::image
