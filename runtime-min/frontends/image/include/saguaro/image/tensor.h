// A dense float32 tensor: the output of preprocessing.
#pragma once

#include <cstdint>
#include <vector>

namespace saguaro::image {

/// Row-major float32 values of the given shape.
struct Tensor {
  std::vector<int64_t> shape;
  std::vector<float> data;
};

}  // namespace saguaro::image
