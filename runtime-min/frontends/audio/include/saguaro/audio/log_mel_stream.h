// Gemma 4's log-mel frames from audio that arrives in pieces: each valid frame comes out as soon as the
// sample that makes it valid has arrived, with the bits LogMelExtractor::compute gives the whole clip
// (docs/audio.md, "Streaming").
#pragma once

#include <cstddef>
#include <vector>

#include "saguaro/audio/log_mel.h"

namespace saguaro::audio {

class LogMelStream {
 public:
  /// A convention with semicausal framing and ln(x + floor) compression (Gemma 4's); throws AudioError for
  /// another (Whisper's frames depend on the clip's end and its global maximum).
  explicit LogMelStream(const LogMelConfig& config);

  /// Takes the next `n` samples (mono, config().sampleRate) and appends the frames they make valid to `frames`
  /// (time-major rows of nMels floats). Throws AudioError when the clip grows past config().maxSamples.
  void push(const float* samples, size_t n, std::vector<float>* frames);
  /// Ends the clip: no frame becomes valid at the end (frames reaching past it are padding). Throws AudioError,
  /// worded as compute()'s, when no samples arrived or too few for one valid frame.
  void finish() const;

  size_t samples() const { return samples_; }
  size_t frames() const { return frames_; }
  const LogMelConfig& config() const { return extractor_.config(); }

 private:
  LogMelExtractor extractor_;
  std::vector<float> padded_;  // the padded signal from the first sample a future frame reads
  size_t paddedStart_ = 0;     // index of padded_[0] in the whole padded signal
  size_t samples_ = 0, frames_ = 0;
};

}  // namespace saguaro::audio
