#include "image_prompt.h"

#include <algorithm>
#include <initializer_list>

namespace saguaro {
namespace {

// One tower's placeholders and the soft tokens (n × dim floats) they take in order; `noun` names them in errors.
struct TowerRows {
  const EncoderSpec* tower;
  const std::vector<float>* soft;
  const char* noun;
};

bool place_rows(std::initializer_list<TowerRows> towers, int32_t dim, const std::vector<int32_t>& ids,
                ImagePrompt* out, std::string* err) {
  const size_t width = static_cast<size_t>(dim);
  for (const TowerRows& t : towers)
    if (const size_t slots = static_cast<size_t>(std::count(ids.begin(), ids.end(), t.tower->token_id));
        t.soft->size() != slots * width)
      return *err = std::to_string(slots) + " " + t.noun + " placeholders but " +
                    std::to_string(t.soft->size() / width) + " soft tokens of " + std::to_string(dim) + " values",
             false;
  ImagePrompt p;
  p.ids = p.lookup = ids;
  p.rows.assign(ids.size() * width, 0.0f);
  p.mask.assign(ids.size(), 0);
  for (const TowerRows& t : towers)
    for (size_t r = 0, k = 0; r < ids.size(); ++r)
      if (ids[r] == t.tower->token_id) {
        p.lookup[r] = t.tower->pad_id, p.mask[r] = 1;
        std::copy_n(t.soft->data() + k++ * width, width, p.rows.data() + r * width);
      }
  *out = std::move(p);
  return true;
}

// Expands *ids for `items` of one tower: every placeholder takes the next item (a prompt without any gets one per
// item after BOS) and becomes begin, one placeholder per soft token, end; their soft tokens go to *soft in order.
bool expand_tower(const EncoderSpec& tower, int32_t dim, int32_t bos, const std::vector<std::vector<float>>& items,
                  const char* noun, std::vector<int32_t>* ids, std::vector<float>* soft, std::string* err) {
  std::vector<int32_t> marked = *ids;
  const size_t placeholders = static_cast<size_t>(std::count(marked.begin(), marked.end(), tower.token_id));
  if (placeholders == 0) {
    const auto at = marked.begin() + (!marked.empty() && marked.front() == bos ? 1 : 0);
    marked.insert(at, items.size(), tower.token_id);
  } else if (placeholders != items.size()) {
    return *err = "the prompt has " + std::to_string(placeholders) + " " + noun + " placeholders but " +
                  std::to_string(items.size()) + " " + noun + "s were given",
           false;
  }
  std::vector<int32_t> expanded;
  size_t item = 0;
  for (int32_t id : marked) {
    if (id != tower.token_id) {
      expanded.push_back(id);
      continue;
    }
    const std::vector<float>& tokens = items[item++];
    expanded.push_back(tower.begin_id);
    expanded.insert(expanded.end(), tokens.size() / static_cast<size_t>(dim), tower.token_id);
    expanded.push_back(tower.end_id);
    soft->insert(soft->end(), tokens.begin(), tokens.end());
  }
  *ids = std::move(expanded);
  return true;
}

}  // namespace

bool place_soft_tokens(const EncoderSpec& vision, int32_t dim, const std::vector<int32_t>& ids,
                       const std::vector<float>& soft_tokens, ImagePrompt* out, std::string* err) {
  return place_rows({{&vision, &soft_tokens, "image"}}, dim, ids, out, err);
}

bool expand_media_prompt(const ModelSpec& spec, int32_t bos, const std::vector<int32_t>& ids,
                         const std::vector<std::vector<float>>& images, const std::vector<std::vector<float>>& clips,
                         ImagePrompt* out, std::string* err) {
  if (!images.empty() && !spec.vision) return *err = "the model has no vision tower to take images", false;
  if (!clips.empty() && !spec.audio) return *err = "the model has no audio tower to take audio", false;
  std::vector<int32_t> expanded = ids;
  std::vector<float> image_rows, audio_rows;
  // The clips first: the images a prompt without placeholders gets then go before them, after BOS.
  if (!clips.empty() && !expand_tower(*spec.audio, spec.dim, bos, clips, "audio clip", &expanded, &audio_rows, err))
    return false;
  if (!images.empty() && !expand_tower(*spec.vision, spec.dim, bos, images, "image", &expanded, &image_rows, err))
    return false;
  if (clips.empty()) return place_rows({{spec.vision, &image_rows, "image"}}, spec.dim, expanded, out, err);
  if (images.empty()) return place_rows({{spec.audio, &audio_rows, "audio"}}, spec.dim, expanded, out, err);
  return place_rows({{spec.vision, &image_rows, "image"}, {spec.audio, &audio_rows, "audio"}}, spec.dim, expanded, out,
                    err);
}

}  // namespace saguaro
