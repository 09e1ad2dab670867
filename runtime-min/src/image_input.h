// An image of a request, from its file or its bytes to the vision tower's soft tokens.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "saguaro/engine.h"

namespace saguaro {

/// An image file on this device (`path`) or held in memory (`bytes`, e.g. a data: URI's payload); `name` says where
/// it came from in errors (the path, or e.g. "messages[0].content[1]").
struct ImageSource {
  std::string name;
  std::string path;
  std::vector<uint8_t> bytes;
};

/// The soft tokens per image the vision tower was compiled for (its budget when a request gives none).
int32_t compiled_soft_tokens(const EncoderSpec& vision);

/// `image`'s soft tokens (n × dim floats) from the engine's vision tower, at `max_soft_tokens` per image (0: the
/// compiled budget; callers check a given one against compiled_soft_tokens): decoded, resized and cut into patches as
/// Gemma4ImageProcessor does (the image front-end, runtime-min/frontends/image), then encoded. False + one line
/// naming the image.
bool encode_image_source(Engine& engine, const ImageSource& image, int32_t max_soft_tokens, std::vector<float>* soft,
                         std::string* err);

}  // namespace saguaro
