// Gemma 3 pan-and-scan crop selection, transcribed from transformers' image_processing_gemma3.py.
#include "saguaro/image/pan_and_scan.h"

#include <algorithm>
#include <cmath>

namespace saguaro::image {

std::vector<CropRect> pan_and_scan_crops(int height, int width, const PanAndScanConfig& c) {
  const bool landscape = width >= height;
  const int longer = landscape ? width : height, shorter = landscape ? height : width;
  if (static_cast<double>(longer) / shorter < c.min_ratio_to_activate) return {};
  int n = static_cast<int>(std::floor(static_cast<double>(longer) / shorter + 0.5));  // half up
  n = std::min(static_cast<int>(std::floor(static_cast<double>(longer) / c.min_crop_size)), n);
  n = std::min(c.max_num_crops, std::max(2, n));
  const int crops_w = landscape ? n : 1, crops_h = landscape ? 1 : n;
  const int crop_w = (width + crops_w - 1) / crops_w, crop_h = (height + crops_h - 1) / crops_h;
  if (std::min(crop_w, crop_h) < c.min_crop_size) return {};
  std::vector<CropRect> crops;
  for (int i = 0; i < crops_h; ++i)
    for (int j = 0; j < crops_w; ++j) crops.push_back(CropRect{j * crop_w, i * crop_h, crop_w, crop_h});
  return crops;
}

}  // namespace saguaro::image
