// The image front-end is linked into runtimes that carry it (SAGUARO_WITH_IMAGES: the project's, and a bundle's whose
// model has a vision tower); without it an image is refused with a reason.
#include "image_input.h"

#if SAGUARO_WITH_IMAGES
#include "saguaro/image/tower_input.h"
#endif

namespace saguaro {

int32_t compiled_soft_tokens(const EncoderSpec& vision) { return vision.max_rows / (vision.pooling * vision.pooling); }

bool encode_image_source(Engine& engine, const ImageSource& image, int32_t max_soft_tokens, std::vector<float>* soft,
                         std::string* err) {
  const EncoderSpec* vision = engine.spec().vision;
  if (!vision) return *err = "the model has no vision tower to take " + image.name, false;
#if SAGUARO_WITH_IMAGES
  std::vector<float> patches;
  std::vector<int32_t> positions;
  const int32_t budget = max_soft_tokens > 0 ? max_soft_tokens : compiled_soft_tokens(*vision);
  const bool read = image.path.empty()
                        ? image::read_tower_input_memory(image.bytes.data(), image.bytes.size(), image.name,
                                                         vision->patch_size, vision->pooling, budget, &patches,
                                                         &positions, err)
                        : image::read_tower_input(image.path, vision->patch_size, vision->pooling, budget, &patches,
                                                  &positions, err);
  if (!read) return false;
  *soft = engine.encode_image(patches, positions, err);
  if (soft->empty()) return *err = image.name + ": " + *err, false;
  return true;
#else
  (void)max_soft_tokens, (void)soft;
  return *err = image.name + ": this runtime was built without the image front-end", false;
#endif
}

}  // namespace saguaro
