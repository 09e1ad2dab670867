// Streamed log-mel frames. Frame t of the semicausal framing reads padded samples t·hop … t·hop + frameLength
// (frameLength / 2 zeros before the clip) and holds real audio when its last padded sample, t·hop + frameLength,
// is past the first frameLength / 2 and before the clip's end — so it is final once one more sample has arrived.
#include "saguaro/audio/log_mel_stream.h"

#include <algorithm>

#include "saguaro/audio/error.h"

namespace saguaro::audio {
namespace {

const LogMelConfig& streamable(const LogMelConfig& c) {
  if (c.framing != Framing::Semicausal || c.compression != LogCompression::LnAddFloor || c.padOrTrimTo)
    throw AudioError("only Gemma 4's log-mel convention (semicausal frames, ln(x + floor), no 30 s padding) streams");
  return c;
}

}  // namespace

LogMelStream::LogMelStream(const LogMelConfig& config)
    : extractor_(streamable(config)), padded_(config.frameLength / 2, 0.0f) {}

void LogMelStream::push(const float* samples, size_t n, std::vector<float>* frames) {
  const LogMelConfig& c = config();
  if (c.maxSamples && samples_ + n > c.maxSamples)
    throw AudioError(tooLong(static_cast<double>(samples_ + n) / c.sampleRate, c.maxSeconds()));
  for (size_t i = 0; i < n; ++i)
    padded_.push_back(c.inputScale != 1.0 ? static_cast<float>(samples[i] * c.inputScale) : samples[i]);
  samples_ += n;
  const size_t pad = c.frameLength / 2;
  // Frame t is valid when t·hop + frameLength < pad + samples (LogMelExtractor::frame's rule).
  std::vector<float> mel(c.nMels);
  for (; frames_ * c.hop + c.frameLength < pad + samples_; ++frames_) {
    extractor_.melFrame(&padded_[frames_ * c.hop - paddedStart_], mel.data(), 1);
    for (size_t m = 0; m < c.nMels; ++m) frames->push_back(extractor_.lnFeature(mel[m], m));
  }
  // Samples before the next frame's first are read by no later frame.
  const size_t keepFrom = frames_ * c.hop;
  if (keepFrom > paddedStart_) {
    padded_.erase(padded_.begin(), padded_.begin() + static_cast<long>(keepFrom - paddedStart_));
    paddedStart_ = keepFrom;
  }
}

void LogMelStream::finish() const {
  if (samples_ == 0) throw AudioError("has no audio samples");
  if (frames_ == 0)
    throw AudioError("audio of " + std::to_string(samples_) + " samples is too short for one valid " +
                     std::to_string(config().frameLength) + "-sample frame");
}

}  // namespace saguaro::audio
