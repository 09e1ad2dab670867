// The STFT and log-mel compression shared by every convention; LogMelConfig selects the framing,
// the magnitude and the compression.
#include "saguaro/audio/log_mel.h"

#include <algorithm>
#include <cmath>

#include "saguaro/audio/error.h"

namespace saguaro::audio {
namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;

/// Periodic Hann window (torch.hann_window(n) and transformers window_function(n, "hann")).
std::vector<float> periodicHann(size_t n) {
  std::vector<float> w(n);
  for (size_t i = 0; i < n; ++i) w[i] = static_cast<float>(0.5 - 0.5 * std::cos(kTwoPi * i / n));
  return w;
}

/// numpy.pad(x, n / 2, mode="reflect") as torch.stft(center=True) does it: the edge sample is not
/// repeated. Requires x.size() > pad, as torch does.
void reflectPad(const std::vector<float>& x, size_t pad, std::vector<float>* out) {
  const size_t n = x.size();
  out->resize(n + 2 * pad);
  for (size_t i = 0; i < pad; ++i) {
    (*out)[pad - 1 - i] = x[i + 1];
    (*out)[pad + n + i] = x[n - 2 - i];
  }
  std::copy(x.begin(), x.end(), out->begin() + static_cast<long>(pad));
}

/// `config` after LogMelConfig::validate(), so nothing is built from an invalid one.
const LogMelConfig& validated(const LogMelConfig& config) {
  config.validate();
  return config;
}

}  // namespace

LogMelExtractor::LogMelExtractor(const LogMelConfig& config)
    : config_(validated(config)),
      window_(periodicHann(config.frameLength)),
      filters_(makeMelFilterBank(config.nMels, config.nFft, config.sampleRate, config.fMin, config.fMax,
                                 config.melScale, config.melNorm)),
      frame_(config.nFft, 0.0f),
      spectrum_(config.nFft / 2 + 1) {
  if (config.fftInDouble) {
    fftDouble_ = std::make_unique<RealFft<double>>(config.nFft);
    frameDouble_.resize(config.nFft);
    binsDouble_.resize(config.nFft / 2 + 1);
  } else {
    fftFloat_ = std::make_unique<RealFft<float>>(config.nFft);
    binsFloat_.resize(config.nFft / 2 + 1);
  }
}

namespace {

template <typename T>
void magnitudes(const ComplexOf<T>* bins, size_t n, bool power, float* out) {
  for (size_t k = 0; k < n; ++k) {
    const T p = bins[k].re * bins[k].re + bins[k].im * bins[k].im;
    out[k] = static_cast<float>(power ? p : std::sqrt(p));
  }
}

}  // namespace

void LogMelExtractor::spectrum() {
  const bool power = config_.magnitude == Magnitude::Power;
  if (fftFloat_) {
    fftFloat_->forward(frame_.data(), binsFloat_.data());
    magnitudes(binsFloat_.data(), binsFloat_.size(), power, spectrum_.data());
  } else {
    // The windowed frame stays float32, as numpy computes frames * window before rfft promotes it.
    std::copy(frame_.begin(), frame_.end(), frameDouble_.begin());
    fftDouble_->forward(frameDouble_.data(), binsDouble_.data());
    magnitudes(binsDouble_.data(), binsDouble_.size(), power, spectrum_.data());
  }
}

size_t LogMelExtractor::frame(const std::vector<float>& samples, size_t* validFrames) {
  const LogMelConfig& c = config_;
  // Even where padding could make frames of nothing (Whisper's --pad-30s), no samples means no input.
  if (samples.empty()) throw AudioError("has no audio samples");
  if (c.maxSamples && samples.size() > c.maxSamples)
    throw AudioError(tooLong(static_cast<double>(samples.size()) / c.sampleRate, c.maxSeconds()));
  std::vector<float> x = samples;
  if (c.inputScale != 1.0)
    for (float& v : x) v = static_cast<float>(v * c.inputScale);
  if (c.padOrTrimTo && x.size() > c.padOrTrimTo) x.resize(c.padOrTrimTo);
  const size_t real = x.size();  // the rest is padding (masked when zeroPaddedFrames)
  if (c.padOrTrimTo) x.resize(c.padOrTrimTo, 0.0f);
  x.resize((x.size() + c.padToMultiple - 1) / c.padToMultiple * c.padToMultiple, 0.0f);

  size_t frames = 0;
  if (c.framing == Framing::CenterReflect) {
    const size_t pad = c.nFft / 2;
    if (x.size() <= pad)
      throw AudioError("audio of " + std::to_string(x.size()) + " samples is too short to frame (needs more than " +
                       std::to_string(pad) + ")");
    reflectPad(x, pad, &padded_);
    frames = (padded_.size() - c.nFft) / c.hop + 1;
    *validFrames = frames;
  } else {
    // Semicausal: frameLength / 2 zeros in front; each frame spans frameLength + 1 samples.
    const size_t pad = c.frameLength / 2, span = c.frameLength + 1;
    padded_.assign(pad, 0.0f);
    padded_.insert(padded_.end(), x.begin(), x.end());
    frames = padded_.size() >= span ? (padded_.size() - span) / c.hop + 1 : 0;
    // A frame is real audio when its last sample (t * hop + frameLength, padded) is.
    size_t valid = 0;
    while (valid < frames && valid * c.hop + c.frameLength < pad + real) ++valid;
    *validFrames = valid;
  }
  if (c.dropLastFrame && frames > 0) --frames;
  *validFrames = std::min(*validFrames, frames);
  if (frames == 0)
    throw AudioError("audio of " + std::to_string(samples.size()) + " samples is too short for one " +
                     std::to_string(c.frameLength) + "-sample frame");
  return frames;
}

void LogMelExtractor::melFrame(const float* s, float* mel, size_t stride) {
  const LogMelConfig& c = config_;
  const size_t offset = c.framing == Framing::CenterReflect ? (c.nFft - c.frameLength) / 2 : 0;
  const float emphasis = static_cast<float>(c.preemphasis);
  float* f = frame_.data() + offset;  // the rest of frame_ stays zero (the FFT's padding)
  if (emphasis != 0.0f) {  // HTK flavour: the first sample is scaled, the rest differenced
    f[0] = s[0] * (1.0f - emphasis) * window_[0];
    for (size_t i = 1; i < c.frameLength; ++i) f[i] = (s[i] - emphasis * s[i - 1]) * window_[i];
  } else {
    for (size_t i = 0; i < c.frameLength; ++i) f[i] = s[i] * window_[i];
  }
  spectrum();
  for (size_t m = 0; m < c.nMels; ++m) {
    const float* w = &filters_.weights[filters_.offset[m]];
    const float* p = &spectrum_[filters_.first[m]];
    const size_t n = filters_.offset[m + 1] - filters_.offset[m];
    float acc = 0.0f;
    for (size_t i = 0; i < n; ++i) acc += w[i] * p[i];
    mel[m * stride] = acc;
  }
}

void LogMelExtractor::melEnergies(size_t frames, std::vector<float>* mel) {
  const LogMelConfig& c = config_;
  const size_t offset = c.framing == Framing::CenterReflect ? (c.nFft - c.frameLength) / 2 : 0;
  mel->assign(c.nMels * frames, 0.0f);
  for (size_t t = 0; t < frames; ++t) melFrame(&padded_[t * c.hop + offset], mel->data() + t, frames);
}

float LogMelExtractor::perBin(float v, size_t m) const {
  if (!config_.perBinMean.empty()) v -= config_.perBinMean[m];
  if (!config_.perBinStddev.empty()) v /= config_.perBinStddev[m];
  return v;
}

float LogMelExtractor::lnFeature(float energy, size_t m) const {
  return perBin(std::log(energy + static_cast<float>(config_.melFloor)), m);
}

Features LogMelExtractor::compute(const std::vector<float>& samples) {
  const LogMelConfig& c = config_;
  size_t valid = 0;
  const size_t frames = frame(samples, &valid);
  Features out;
  out.nMels = c.nMels;
  out.nFrames = frames;
  out.nValid = valid;
  melEnergies(frames, &out.data);
  std::vector<float>& d = out.data;
  if (c.compression == LogCompression::WhisperLog10) {
    const float floor = static_cast<float>(c.melFloor);
    float top = -INFINITY;
    for (float& v : d) {
      v = std::log10(std::max(v, floor));
      top = std::max(top, v);
    }
    for (float& v : d) v = (std::max(v, top - 8.0f) + 4.0f) / 4.0f;
    for (size_t m = 0; m < c.nMels; ++m)
      for (size_t t = 0; t < frames; ++t) d[m * frames + t] = perBin(d[m * frames + t], m);
  } else {
    for (size_t m = 0; m < c.nMels; ++m)
      for (size_t t = 0; t < frames; ++t) d[m * frames + t] = lnFeature(d[m * frames + t], m);
  }
  if (c.zeroPaddedFrames)
    for (size_t m = 0; m < c.nMels; ++m) std::fill(&d[m * frames] + valid, &d[m * frames] + frames, 0.0f);
  return out;
}

std::vector<float> Features::transposed() const {
  std::vector<float> t(data.size());
  for (size_t m = 0; m < nMels; ++m)
    for (size_t f = 0; f < nFrames; ++f) t[f * nMels + m] = data[m * nFrames + f];
  return t;
}

Features logMel(const std::vector<float>& samples, const LogMelConfig& config) {
  return LogMelExtractor(config).compute(samples);
}

}  // namespace saguaro::audio
