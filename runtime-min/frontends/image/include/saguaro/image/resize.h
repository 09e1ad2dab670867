// Resizing RGB images exactly as Pillow's Image.resize does.
#pragma once

#include "saguaro/image/resample_coeffs.h"
#include "saguaro/image/rgb8.h"

namespace saguaro::image {

/// Image.resize((width, height), resample) of Pillow 9.4 on an RGB image, bit for bit: a
/// horizontal then a vertical pass, each with fixed-point weights and round-and-clip to uint8
/// (the intermediate image is uint8 too). An axis whose size does not change is not filtered.
/// HF image processors resize the uint8 PIL image this way before rescaling to float.
Rgb8 resize(const Rgb8& image, int width, int height, Resample filter);

}  // namespace saguaro::image
