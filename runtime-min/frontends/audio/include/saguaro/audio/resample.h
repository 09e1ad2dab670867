// Band-limited sample-rate conversion: a polyphase Kaiser-windowed sinc filter at the rational ratio
// outRate / inRate (44100 -> 16000 is 160 / 441).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace saguaro::audio {

/// The filter design. Defaults: the passband ends at 90 % of the lower Nyquist frequency (7.2 kHz for
/// 16 kHz output) and the stopband starts at that Nyquist frequency, with 90 dB Kaiser attenuation.
struct ResamplerDesign {
  double passbandFraction = 0.90;
  double stopbandAttenuationDb = 90.0;
};

/// Converts mono samples from inRate to outRate. Each output sample is a zero-phase weighted sum of the
/// input around its exact position t = n * inRate / outRate (no delay); outside the input is silence.
/// The coefficients for every fractional position are tabulated once (one phase per output position
/// modulo the reduced ratio, or a finely interpolated table when that ratio's numerator is large).
class Resampler {
 public:
  Resampler(uint32_t inRate, uint32_t outRate, ResamplerDesign design = {});
  /// ceil(n * outRate / inRate) output samples.
  size_t outputLength(size_t n) const;
  std::vector<float> process(const std::vector<float>& in) const;
  /// Taps per output sample (the filter length in input samples).
  size_t taps() const { return taps_; }

 private:
  float tap(size_t phaseNumerator, size_t j) const;

  uint64_t up_, down_;  // outRate / inRate reduced: output n sits at input n * down_ / up_
  size_t taps_;         // 2 * halfWidth
  long halfWidth_;      // input samples on each side of the output position
  size_t phases_;       // rows in table_ (up_ when exact, kInterpolatedPhases + 1 otherwise)
  bool exactPhases_;
  std::vector<float> table_;  // [phases_][taps_]
};

/// One-shot helper: resample(in, 44100, 16000).
std::vector<float> resample(const std::vector<float>& in, uint32_t inRate, uint32_t outRate);

}  // namespace saguaro::audio
