// Entry point of the bundle program (the emitted main.cpp calls it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace saguaro {

/// Reads an image file into the patches and positions of a vision tower with this patch size, pooling and
/// soft-token budget (saguaro::image::read_tower_input); false and one line naming the file in *err.
using ReadTowerInputFn = bool (*)(const std::string& path, int patch_size, int pooling, int max_soft_tokens,
                                  std::vector<float>* patches, std::vector<int32_t>* positions, std::string* err);

/// Runs `saguaro_bundle BUNDLE -p PROMPT ...` or `--logits IDS -o OUT.npy` (docs/runtime.md); returns the exit code.
/// A vision bundle's main.cpp passes the image front-end's reader, which `--image` needs; others pass none.
int bundle_main(int argc, char** argv, ReadTowerInputFn read_image = nullptr);

}  // namespace saguaro
