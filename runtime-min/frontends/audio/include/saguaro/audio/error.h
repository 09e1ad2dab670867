// The one exception type of the audio front-end (features.h turns it into an error value).
#pragma once

#include <stdexcept>

namespace saguaro::audio {

/// Every failure of the audio front-end: a one-line message that names the file and the problem.
class AudioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace saguaro::audio
