#include "saguaro/image/tower_input.h"

#include <exception>

#include "saguaro/image/decode.h"
#include "saguaro/image/resize.h"
#include "saguaro/image/soft_token_patches.h"
#include "saguaro/image/soft_token_resize.h"

namespace saguaro::image {
namespace {

// The patches and positions of the image `decode` returns; `name` (the file, or what stands for it) starts errors.
template <typename Decode>
bool tower_input(const Decode& decode, const std::string& name, int patch_size, int pooling, int max_soft_tokens,
                 std::vector<float>* patches, std::vector<int32_t>* positions, std::string* err) noexcept {
  try {
    SoftTokenBudget budget;
    budget.patch_size = patch_size, budget.pooling_kernel_size = pooling, budget.max_soft_tokens = max_soft_tokens;
    if (const std::string problem = soft_token_budget_problem(budget); !problem.empty())
      return *err = name + ": max_soft_tokens " + problem, false;
    const Rgb8 decoded = decode();
    const Size size = soft_token_size(decoded.height, decoded.width, budget);
    const Rgb8 resized = size.height == decoded.height && size.width == decoded.width
                             ? decoded
                             : resize(decoded, size.width, size.height, Resample::Bicubic);
    Normalization rescale_only;
    rescale_only.normalize = false;  // the tower maps [0, 1] to [-1, 1] itself
    SoftTokenPatches cut = soft_token_patches(resized, rescale_only, budget, name);
    *patches = std::move(cut.patches.data);
    *positions = std::move(cut.positions);
    return true;
  } catch (const std::exception& e) {
    *err = e.what();
    return false;
  }
}

}  // namespace

bool read_tower_input(const std::string& path, int patch_size, int pooling, int max_soft_tokens,
                      std::vector<float>* patches, std::vector<int32_t>* positions, std::string* err) noexcept {
  return tower_input([&] { return decode_image(path); }, path, patch_size, pooling, max_soft_tokens, patches,
                     positions, err);
}

bool read_tower_input_memory(const uint8_t* data, size_t size, const std::string& name, int patch_size, int pooling,
                             int max_soft_tokens, std::vector<float>* patches, std::vector<int32_t>* positions,
                             std::string* err) noexcept {
  return tower_input([&] { return decode_image_memory(data, size, name); }, name, patch_size, pooling,
                     max_soft_tokens, patches, positions, err);
}

}  // namespace saguaro::image
