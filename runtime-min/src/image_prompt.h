// Where the soft tokens of images and audio clips go in a tokenized prompt (Gemma4Processor's expansion).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "saguaro/model_abi.h"

namespace saguaro {

/// A prompt with images, ready for prefill.
struct ImagePrompt {
  std::vector<int32_t> ids;     // the expanded prompt: each image or clip as begin_id, n placeholders, end_id
  std::vector<int32_t> lookup;  // the ids the model embeds: placeholders read as pad_id
  std::vector<float> rows;      // ids.size() × dim: the soft tokens at the placeholders, zero elsewhere
  std::vector<uint8_t> mask;    // 1 at the placeholders
};

/// Fills out->ids, lookup, rows and mask for `ids` that are already expanded: its placeholders take the rows of
/// `soft_tokens` (n × dim floats) in order and are looked up as pad_id. False + a one-line reason when the
/// placeholders and the soft tokens differ in number.
bool place_soft_tokens(const EncoderSpec& vision, int32_t dim, const std::vector<int32_t>& ids,
                       const std::vector<float>& soft_tokens, ImagePrompt* out, std::string* err);

/// Expands `ids` for `images` and audio `clips` (each n_i × dim floats of soft tokens), tower by tower: every
/// placeholder token of the tower takes its next item and becomes begin, one placeholder per soft token, end
/// (begin-image … end-image, begin-audio … end-audio); a prompt without any of a tower's placeholders gets one per
/// item after its first token when that is `bos` (else at its start), the images before the clips. The placeholders
/// read the items' soft tokens in order (place_soft_tokens). False + a one-line reason when a tower is missing or
/// its placeholders and items differ in number.
bool expand_media_prompt(const ModelSpec& spec, int32_t bos, const std::vector<int32_t>& ids,
                         const std::vector<std::vector<float>>& images, const std::vector<std::vector<float>>& clips,
                         ImagePrompt* out, std::string* err);

}  // namespace saguaro
