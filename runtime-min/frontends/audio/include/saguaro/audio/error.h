// The one exception type of the audio front-end (features.h turns it into an error value).
#pragma once

#include <cstdio>
#include <stdexcept>
#include <string>

namespace saguaro::audio {

/// Every failure of the audio front-end: a one-line message that names the file and the problem.
class AudioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The one message for audio over a length limit, which the WAV reader checks from the header and
/// the extractor from the samples it is given: "is 10800.00 s long; at most 30.00 s is accepted".
inline std::string tooLong(double seconds, double maxSeconds) {
  char text[128];
  std::snprintf(text, sizeof text, "is %.2f s long; at most %.2f s is accepted (longer audio is refused, not cut)",
                seconds, maxSeconds);
  return text;
}

}  // namespace saguaro::audio
