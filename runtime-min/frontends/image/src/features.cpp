// The exception boundary between the image library and the driver (features.h).
#include "saguaro/image/features.h"

#include <new>

#include "saguaro/image/config.h"
#include "saguaro/image/decode.h"
#include "saguaro/image/error.h"
#include "saguaro/image/npy_file.h"
#include "saguaro/image/preprocess.h"

namespace saguaro::image {

bool write_image_features(const FeaturesRequest& request, FeaturesResult* result, std::string* err) noexcept {
  try {
    // The configuration first: a bad config fails before the image is even read.
    const ImageConfig config = request.config_path.empty() ? ImageConfig{}
                                                           : ImageConfig::from_preprocessor_json(request.config_path);
    const Rgb8 image = decode_image(request.image_path);
    if (request.decode_only) {
      result->dtype = "uint8";
      result->shape = {image.height, image.width, 3};
      write_npy(request.output_path, "|u1", result->shape, image.pixels.data(), image.pixels.size());
      return true;
    }
    const Tensor t = preprocess(image, config, request.image_path);
    result->dtype = "float32";
    result->shape = t.shape;
    write_npy(request.output_path, "<f4", t.shape, t.data.data(), t.data.size() * sizeof(float));
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
