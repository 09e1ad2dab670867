// Polyphase Kaiser-windowed sinc resampler. Kaiser's formulas (Oppenheim & Schafer, 3rd ed., 7.6):
// for stopband attenuation A dB and transition width dw (radians per sample),
//   beta = 0.1102 (A - 8.7)            (A > 50)
//   taps = (A - 7.95) / (2.285 dw)     (equivalently (A - 7.95) / (14.36 df) with df in cycles)
#include "saguaro/audio/resample.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "saguaro/audio/error.h"

namespace saguaro::audio {
namespace {

constexpr double kPi = 3.14159265358979323846;
// Ratios whose reduced numerator is at most this get one exact table row per output phase (every
// common rate to 16 kHz: 44.1 kHz -> 160 rows, 22.05 kHz -> 320, 11.025 kHz -> 640).
constexpr uint64_t kMaxExactPhases = 2048;
// Otherwise the fractional position is quantized to this grid and rows are interpolated linearly;
// the interpolation error of a sinc this smooth is below -120 dB.
constexpr size_t kInterpolatedPhases = 1024;

/// Modified Bessel function of the first kind, order 0 (power series; converges fast for beta < 20).
double besselI0(double x) {
  double sum = 1.0, term = 1.0;
  for (int k = 1; k < 64; ++k) {
    term *= (x / (2.0 * k)) * (x / (2.0 * k));
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return sum;
}

/// sum a[i] b[i] with eight independent partial sums, so the loop pipelines (and vectorizes).
float dot(const float* a, const float* b, size_t n) {
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (size_t l = 0; l < 8; ++l) acc[l] += a[i + l] * b[i + l];
  for (; i < n; ++i) acc[0] += a[i] * b[i];
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

double sinc(double x) { return x == 0.0 ? 1.0 : std::sin(kPi * x) / (kPi * x); }

}  // namespace

Resampler::Resampler(uint32_t inRate, uint32_t outRate, ResamplerDesign design) {
  if (inRate == 0 || outRate == 0) throw AudioError("resampler: sample rates must be positive");
  if (!(design.passbandFraction > 0.0 && design.passbandFraction < 1.0) || !(design.stopbandAttenuationDb > 0.0))
    throw AudioError("resampler: the passband fraction must be in (0, 1) and the attenuation positive");
  const uint64_t g = std::gcd(static_cast<uint64_t>(inRate), static_cast<uint64_t>(outRate));
  up_ = outRate / g;
  down_ = inRate / g;
  // Frequencies in cycles per input sample. The lower of the two Nyquist frequencies bounds the band.
  const double nyquist = 0.5 * std::min(1.0, static_cast<double>(outRate) / inRate);
  const double passband = design.passbandFraction * nyquist;
  const double cutoff = 0.5 * (passband + nyquist);
  const double transition = nyquist - passband;
  const double attenuation = design.stopbandAttenuationDb;
  const double beta = attenuation > 50.0 ? 0.1102 * (attenuation - 8.7)
                      : attenuation > 21.0 ? 0.5842 * std::pow(attenuation - 21.0, 0.4) + 0.07886 * (attenuation - 21.0)
                                           : 0.0;
  const double length = (attenuation - 7.95) / (14.36 * transition);
  const double halfSpan = 0.5 * length;  // the window's half-width, in input samples
  halfWidth_ = static_cast<long>(std::ceil(halfSpan));
  taps_ = static_cast<size_t>(2 * halfWidth_);

  exactPhases_ = up_ <= kMaxExactPhases;
  phases_ = exactPhases_ ? up_ : kInterpolatedPhases + 1;
  const double phaseStep = exactPhases_ ? 1.0 / static_cast<double>(up_) : 1.0 / kInterpolatedPhases;
  table_.resize(phases_ * taps_);
  const double windowNorm = besselI0(beta);
  std::vector<double> h(taps_);
  for (size_t p = 0; p < phases_; ++p) {
    const double frac = static_cast<double>(p) * phaseStep;
    float* row = &table_[p * taps_];
    double sum = 0.0;
    for (size_t i = 0; i < taps_; ++i) {
      const double d = frac - (static_cast<double>(i) - static_cast<double>(halfWidth_ - 1));  // t - k
      const double x = d / halfSpan;
      const double window = std::abs(x) >= 1.0 ? 0.0 : besselI0(beta * std::sqrt(1.0 - x * x)) / windowNorm;
      h[i] = 2.0 * cutoff * sinc(2.0 * cutoff * d) * window;
      sum += h[i];
    }
    // Unit DC gain for every phase, so a constant stays exactly constant.
    for (size_t i = 0; i < taps_; ++i) row[i] = static_cast<float>(h[i] / sum);
  }
}

size_t Resampler::outputLength(size_t n) const {
  return static_cast<size_t>((static_cast<uint64_t>(n) * up_ + down_ - 1) / down_);
}

std::vector<float> Resampler::process(const std::vector<float>& in) const {
  const size_t nOut = outputLength(in.size());
  std::vector<float> out(nOut);
  std::vector<float> mixed(taps_);
  const long n = static_cast<long>(in.size());
  for (size_t o = 0; o < nOut; ++o) {
    const uint64_t position = static_cast<uint64_t>(o) * down_;
    const long base = static_cast<long>(position / up_);
    const uint64_t frac = position % up_;
    const float* h;
    if (exactPhases_) {
      h = &table_[frac * taps_];
    } else {
      const double x = static_cast<double>(frac) / static_cast<double>(up_) * kInterpolatedPhases;
      const size_t row = std::min(static_cast<size_t>(x), kInterpolatedPhases - 1);
      const float w = static_cast<float>(x - static_cast<double>(row));
      const float* a = &table_[row * taps_];
      const float* b = a + taps_;
      for (size_t i = 0; i < taps_; ++i) mixed[i] = a[i] + w * (b[i] - a[i]);
      h = mixed.data();
    }
    // Taps cover input samples base - halfWidth + 1 .. base + halfWidth; those outside the input are 0.
    const long first = base - halfWidth_ + 1;
    const long lo = std::max(0L, -first), hi = std::min(static_cast<long>(taps_), n - first);
    out[o] = dot(h + lo, in.data() + (first + lo), static_cast<size_t>(std::max(0L, hi - lo)));
  }
  return out;
}

std::vector<float> resample(const std::vector<float>& in, uint32_t inRate, uint32_t outRate) {
  if (inRate == outRate) return in;
  return Resampler(inRate, outRate).process(in);
}

}  // namespace saguaro::audio
