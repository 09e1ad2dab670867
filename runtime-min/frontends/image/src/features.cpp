// The exception boundary between the image library and the driver (features.h).
#include "saguaro/image/features.h"

#include <new>

#include "saguaro/image/config.h"
#include "saguaro/image/decode.h"
#include "saguaro/image/error.h"
#include "saguaro/image/npy_file.h"
#include "saguaro/image/pixels_npy.h"
#include "saguaro/image/preprocess.h"
#include "saguaro/image/soft_token_patches.h"

namespace saguaro::image {

namespace {

/// The configuration with the request's overrides; refuses overrides the processor has no use for.
ImageConfig requested_config(const FeaturesRequest& request) {
  ImageConfig c =
      request.config_path.empty() ? ImageConfig{} : ImageConfig::from_preprocessor_json(request.config_path);
  const bool gemma4 = c.mode == ResizeMode::SoftTokens;
  const std::string config_name = request.config_path.empty() ? "the default configuration" : request.config_path;
  if (!gemma4 && (request.max_soft_tokens != 0 || !request.positions_path.empty() || request.resized_pixels))
    throw ImageError(config_name + ": max_soft_tokens, patch positions and resized pixels belong to "
                     "Gemma4ImageProcessor, not " + c.processor);
  if (request.resized_only && c.do_pan_and_scan)
    throw ImageError(config_name + ": resized-only output of pan-and-scan crops is not supported");
  if (request.max_soft_tokens != 0) {
    c.max_soft_tokens = request.max_soft_tokens;
    const std::string problem = soft_token_budget_problem(c.soft_token_budget());
    if (!problem.empty()) throw ImageError(request.image_path + ": max_soft_tokens " + problem);
  }
  return c;
}

/// Writes the patches, and the positions when asked, both or neither.
void write_soft_token_patches(const FeaturesRequest& request, const SoftTokenPatches& p, FeaturesResult* result) {
  result->dtype = "float32";
  result->shape = p.patches.shape;
  std::vector<NpyArray> arrays = {
      {request.output_path, "<f4", p.patches.shape, p.patches.data.data(), p.patches.data.size() * sizeof(float)}};
  if (!request.positions_path.empty()) {
    result->positions_shape = {p.patches.shape[0], 2};
    arrays.push_back({request.positions_path, "<i4", result->positions_shape, p.positions.data(),
                      p.positions.size() * sizeof(int32_t)});
  }
  write_npy(arrays);
}

/// Gemma 4 from an already resized image: no decoding, no resizing.
SoftTokenPatches patches_of_resized_pixels(const std::string& path, const ImageConfig& config) {
  const PixelsNpy pixels = read_pixels_npy(path);
  return pixels.is_float
             ? soft_token_patches(pixels.float32.data(), pixels.height, pixels.width, config.soft_token_budget(), path)
             : soft_token_patches(pixels.uint8, config.norm, config.soft_token_budget(), path);
}

void write(const FeaturesRequest& request, FeaturesResult* result) {
  // The configuration first: a bad config fails before the image is even read.
  const ImageConfig config = requested_config(request);
  if (!request.positions_path.empty() && request.positions_path == request.output_path)
    throw ImageError(request.positions_path + ": the positions and the patches need two different files");
  if (request.resized_pixels)
    return write_soft_token_patches(request, patches_of_resized_pixels(request.image_path, config), result);
  const Rgb8 image = decode_image(request.image_path);
  const auto write_pixels = [&](const Rgb8& pixels) {
    result->dtype = "uint8";
    result->shape = {pixels.height, pixels.width, 3};
    write_npy({{request.output_path, "|u1", result->shape, pixels.pixels.data(), pixels.pixels.size()}});
  };
  if (request.decode_only) return write_pixels(image);
  const std::vector<Rgb8> resized = resized_images(image, config, request.image_path);
  if (request.resized_only) return write_pixels(resized[0]);
  if (config.mode == ResizeMode::SoftTokens)
    return write_soft_token_patches(
        request, soft_token_patches(resized[0], config.norm, config.soft_token_budget(), request.image_path), result);
  const Tensor t = pixel_values(resized, config, request.image_path);
  result->dtype = "float32";
  result->shape = t.shape;
  write_npy({{request.output_path, "<f4", t.shape, t.data.data(), t.data.size() * sizeof(float)}});
}

}  // namespace

bool write_image_features(const FeaturesRequest& request, FeaturesResult* result, std::string* err) noexcept {
  try {
    write(request, result);
    return true;
  } catch (const ImageError& e) {
    *err = e.what();
  } catch (const std::bad_alloc&) {
    *err = request.image_path + ": out of memory";
  } catch (const std::exception& e) {
    *err = request.image_path + ": " + e.what();
  }
  return false;
}

}  // namespace saguaro::image
