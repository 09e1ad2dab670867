// An image file straight to what a compiled vision tower takes: the bundle program's `--image`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace saguaro::image {

/// Decodes a PNG or JPEG, resizes it to the soft-token budget and cuts its patches and positions as
/// Gemma4ImageProcessor does (bicubic, rescaled by 1/255, not normalized; docs/image.md, "Gemma 4"):
/// patches [n, 3·patch_size²] row-major, positions [n, 2] (column, row). Never throws: on failure false and a
/// one-line message naming the file in *err.
bool read_tower_input(const std::string& path, int patch_size, int pooling, int max_soft_tokens,
                      std::vector<float>* patches, std::vector<int32_t>* positions, std::string* err) noexcept;

/// The same for an image file held in memory (e.g. a data: URI's payload); `name` starts every error message.
bool read_tower_input_memory(const uint8_t* data, size_t size, const std::string& name, int patch_size, int pooling,
                             int max_soft_tokens, std::vector<float>* patches, std::vector<int32_t>* positions,
                             std::string* err) noexcept;

}  // namespace saguaro::image
