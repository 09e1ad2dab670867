// The one exception type of the image front-end.
#pragma once

#include <stdexcept>
#include <string>

namespace saguaro::image {

/// A bad input or configuration. what() is one line that names the file and the problem,
/// e.g. "cat.png: PNG is truncated: chunk IDAT at offset 33 needs 8192 bytes, 100 remain".
class ImageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace saguaro::image
