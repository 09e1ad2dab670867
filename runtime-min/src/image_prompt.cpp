#include "image_prompt.h"

#include <algorithm>

namespace saguaro {

bool place_soft_tokens(const EncoderSpec& vision, int32_t dim, const std::vector<int32_t>& ids,
                       const std::vector<float>& soft_tokens, ImagePrompt* out, std::string* err) {
  const size_t width = static_cast<size_t>(dim);
  const size_t slots = static_cast<size_t>(std::count(ids.begin(), ids.end(), vision.token_id));
  if (soft_tokens.size() != slots * width)
    return *err = std::to_string(slots) + " image placeholders but " + std::to_string(soft_tokens.size() / width) +
                  " soft tokens of " + std::to_string(dim) + " values",
           false;
  ImagePrompt p;
  p.ids = p.lookup = ids;
  p.rows.assign(ids.size() * width, 0.0f);
  p.mask.assign(ids.size(), 0);
  for (size_t r = 0, k = 0; r < ids.size(); ++r)
    if (ids[r] == vision.token_id) {
      p.lookup[r] = vision.pad_id, p.mask[r] = 1;
      std::copy_n(soft_tokens.data() + k++ * width, width, p.rows.data() + r * width);
    }
  *out = std::move(p);
  return true;
}

bool expand_image_prompt(const EncoderSpec& vision, int32_t dim, int32_t bos, const std::vector<int32_t>& ids,
                         const std::vector<std::vector<float>>& images, ImagePrompt* out, std::string* err) {
  std::vector<int32_t> marked = ids;
  const size_t placeholders = static_cast<size_t>(std::count(ids.begin(), ids.end(), vision.token_id));
  if (placeholders == 0) {  // the images go first, after BOS
    const auto at = marked.begin() + (!marked.empty() && marked.front() == bos ? 1 : 0);
    marked.insert(at, images.size(), vision.token_id);
  } else if (placeholders != images.size()) {
    return *err = "the prompt has " + std::to_string(placeholders) + " image placeholders but " +
                  std::to_string(images.size()) + " images were given",
           false;
  }
  // Each image's placeholder becomes begin-image, one placeholder per soft token, end-image.
  std::vector<int32_t> expanded;
  std::vector<float> soft;
  size_t image = 0;
  for (int32_t id : marked) {
    if (id != vision.token_id) {
      expanded.push_back(id);
      continue;
    }
    const std::vector<float>& tokens = images[image++];
    expanded.push_back(vision.begin_id);
    expanded.insert(expanded.end(), tokens.size() / static_cast<size_t>(dim), vision.token_id);
    expanded.push_back(vision.end_id);
    soft.insert(soft.end(), tokens.begin(), tokens.end());
  }
  return place_soft_tokens(vision, dim, expanded, soft, out, err);
}

}  // namespace saguaro
