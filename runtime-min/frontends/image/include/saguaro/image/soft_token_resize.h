// Gemma 4's aspect-preserving resize to a soft-token budget (Gemma4ImageProcessor).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "saguaro/image/smart_resize.h"

namespace saguaro::image {

/// How many soft tokens an image may become, and how patches map to them: the tower embeds
/// patch × patch pixel squares and averages pooling_kernel_size² neighbouring patches into one
/// soft token, so an image may hold max_soft_tokens · pooling_kernel_size² patches.
struct SoftTokenBudget {
  int max_soft_tokens = 280;
  int pooling_kernel_size = 3;
  int patch_size = 16;

  /// The side of one soft token in pixels (48 for Gemma 4): both resized sides are multiples of it.
  int side() const { return pooling_kernel_size * patch_size; }
  int64_t max_patches() const { return int64_t{max_soft_tokens} * pooling_kernel_size * pooling_kernel_size; }
};

/// The budgets Gemma 4 was trained with (transformers' _SUPPORTED_SOFT_TOKENS); others are refused.
constexpr std::array<int, 5> kSupportedSoftTokens = {70, 140, 280, 560, 1120};

/// Why the budget cannot be used, said after "max_soft_tokens ": "100 is not supported (70, 140,
/// 280, 560, 1120)", or that patch and kernel sizes would let a resized image pass the decoder's
/// pixel limit; empty when it can. The functions below expect a budget this accepts.
std::string soft_token_budget_problem(const SoftTokenBudget& budget);

/// get_aspect_ratio_preserving_size: scales height × width to the area of max_patches patches
/// and rounds each side down to a multiple of side(), upscaling small images (32×32 → 768×768 at
/// 280). A side that rounds to 0 becomes side() and the other floor(long / short) · side(), at
/// most max_soft_tokens · side(). Any positive size has an answer; the result never exceeds the
/// budget (docs/image.md shows why transformers' two ValueErrors cannot fire).
Size soft_token_size(int height, int width, const SoftTokenBudget& budget);

/// Checks that height × width is a size soft_token_size can produce for this budget: both sides
/// positive multiples of side() and at most max_patches() patches. Throws ImageError naming
/// `name` otherwise. Used for images that arrive already resized.
void check_soft_token_grid(int height, int width, const SoftTokenBudget& budget, const std::string& name);

}  // namespace saguaro::image
