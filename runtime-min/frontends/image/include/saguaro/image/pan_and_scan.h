// Gemma 3's pan-and-scan: extra crops of an image whose aspect ratio is far from square.
#pragma once

#include <vector>

namespace saguaro::image {

struct PanAndScanConfig {
  int min_crop_size = 256;
  int max_num_crops = 4;
  double min_ratio_to_activate = 1.2;
};

/// A crop rectangle; the last one in a row or column may extend past the image and is clipped.
struct CropRect {
  int x = 0, y = 0, width = 0, height = 0;
};

/// Gemma3ImageProcessor.pan_and_scan: no crops when the long/short ratio is below the threshold;
/// otherwise round(ratio) crops (at least 2, at most max_num_crops, no narrower than
/// min_crop_size) side by side along the long axis, each ceil(long / n) wide, in reading order.
std::vector<CropRect> pan_and_scan_crops(int height, int width, const PanAndScanConfig& config);

}  // namespace saguaro::image
