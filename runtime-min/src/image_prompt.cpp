#include "image_prompt.h"

#include <algorithm>

namespace saguaro {

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
  ImagePrompt p;
  size_t image = 0;
  for (int32_t id : marked) {
    if (id != vision.token_id) {
      p.ids.push_back(id);
      continue;
    }
    const std::vector<float>& soft = images[image++];
    const size_t n = soft.size() / static_cast<size_t>(dim), first = p.ids.size() + 1;
    p.ids.push_back(vision.begin_id);
    p.ids.insert(p.ids.end(), n, vision.token_id);
    p.ids.push_back(vision.end_id);
    p.rows.resize(p.ids.size() * static_cast<size_t>(dim));
    std::copy(soft.begin(), soft.end(), p.rows.begin() + first * dim);
  }
  p.rows.resize(p.ids.size() * static_cast<size_t>(dim));
  p.lookup = p.ids;
  p.mask.assign(p.ids.size(), 0);
  for (size_t r = 0; r < p.ids.size(); ++r)
    if (p.ids[r] == vision.token_id) p.lookup[r] = vision.pad_id, p.mask[r] = 1;
  *out = std::move(p);
  return true;
}

}  // namespace saguaro
