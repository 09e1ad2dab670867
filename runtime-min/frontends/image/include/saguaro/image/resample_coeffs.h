// Pillow's resampling filters and their per-axis coefficient tables (Pillow 9.4, Resample.c).
#pragma once

#include <cstdint>
#include <vector>

namespace saguaro::image {

/// The filters of Image.resize that vision processors use; values are PIL's resample codes.
enum class Resample { Bilinear = 2, Bicubic = 3 };

/// Fixed-point weights carry this many fractional bits (Pillow's PRECISION_BITS = 32 - 8 - 2).
constexpr int kPrecisionBits = 22;

/// The taps of one axis: output i reads inputs first[i] .. first[i] + count[i] - 1 with weights
/// weights[i * taps ...], normalized to sum 1 and rounded to kPrecisionBits, half away from zero.
struct AxisCoeffs {
  int taps = 0;
  std::vector<int> first;
  std::vector<int> count;
  std::vector<int32_t> weights;
};

/// Pillow's precompute_coeffs + normalize_coeffs_8bpc for resizing in_size samples to out_size.
/// When downscaling, the filter's support widens by in_size / out_size (antialiasing).
AxisCoeffs pillow_axis_coeffs(int in_size, int out_size, Resample filter);

}  // namespace saguaro::image
