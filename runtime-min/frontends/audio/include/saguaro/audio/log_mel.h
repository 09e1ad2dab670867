// Log-mel spectrograms in the exact conventions models were trained on: Whisper's
// (whisper/audio.py log_mel_spectrogram) and Gemma 4's USM front-end (transformers
// Gemma4AudioFeatureExtractor). docs/audio.md lists every constant and where it comes from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "saguaro/audio/fft.h"
#include "saguaro/audio/mel.h"

namespace saguaro::audio {

/// How the signal is cut into frames.
enum class Framing {
  // torch.stft(center=True, pad_mode="reflect"): n_fft / 2 reflected samples on both sides, frame t
  // starts at t * hop in the padded signal; 1 + n / hop frames.
  CenterReflect,
  // Gemma 4: frameLength / 2 zeros before the signal, frames of frameLength + 1 samples at every hop
  // that fits entirely (the extra sample feeds pre-emphasis and is otherwise dropped).
  Semicausal,
};

/// What is taken of each FFT bin, and how mel energies are compressed.
enum class Magnitude { Power, Abs };
enum class LogCompression {
  // Whisper: log10(max(x, 1e-10)), then max(x, global max - 8), then (x + 4) / 4.
  WhisperLog10,
  // Gemma 4: ln(x + melFloor).
  LnAddFloor,
};

/// A complete feature convention. The field defaults are Whisper's 80-mel convention (openai/whisper
/// whisper/audio.py); the Gemma 4 preset changes only the fields where it differs (docs/audio.md).
struct LogMelConfig {
  uint32_t sampleRate = 16000;  // SAMPLE_RATE
  size_t nMels = 80;            // mel_filters(n_mels=80)
  size_t nFft = 400;            // N_FFT: FFT length (frames are zero-padded to it)
  size_t frameLength = 400;     // window length in samples (periodic Hann, torch.hann_window(N_FFT))
  size_t hop = 160;             // HOP_LENGTH
  // librosa.filters.mel(sr=16000, n_fft=400) defaults: 0 .. sr / 2, Slaney scale and area norm.
  double fMin = 0.0, fMax = 8000.0;
  MelScale melScale = MelScale::Slaney;
  MelNorm melNorm = MelNorm::Slaney;
  Framing framing = Framing::CenterReflect;  // torch.stft(center=True, pad_mode="reflect")
  Magnitude magnitude = Magnitude::Power;    // stft.abs() ** 2
  LogCompression compression = LogCompression::WhisperLog10;
  double melFloor = 1e-10;    // clamp(min=1e-10)
  double preemphasis = 0.0;   // HTK-flavoured pre-emphasis within each frame (Semicausal only)
  double inputScale = 1.0;    // samples are multiplied by this first (Gemma's input_scale_factor)
  // The FFT's precision follows the reference: torch.stft (Whisper) in float32, numpy.fft.rfft (Gemma)
  // in float64. ln(x + 1e-3) turns float32 round-off in near-empty bins into errors above 1e-3.
  bool fftInDouble = false;
  bool dropLastFrame = true;  // Whisper drops the last STFT frame: stft[..., :-1]
  // Samples before framing: pad with zeros or trim to padOrTrimTo (0 = off; Whisper's --pad-30s sets
  // it to chunkSamples), then zero-pad to a multiple of padToMultiple.
  size_t chunkSamples = 480000;  // N_SAMPLES: 30 s at 16 kHz (preprocessor n_samples)
  size_t padOrTrimTo = 0;
  size_t padToMultiple = 1;
  // The longest input accepted (0 = any length). Longer input is refused, not cut: cutting would
  // silently drop the end of what was said (docs/audio.md, "Length limit").
  size_t maxSamples = 0;
  // Zero the frames whose window reaches into the padding (Gemma's input_features * mask).
  bool zeroPaddedFrames = false;
  // Per-mel normalization after the log (Gemma's per_bin_mean / per_bin_stddev); empty = off.
  std::vector<float> perBinMean, perBinStddev;
  // The reference's output layout: Whisper's [n_mels, n_frames], or Gemma's input_features
  // [n_frames, n_mels] (time-major).
  bool timeMajor = false;

  /// Whisper with 80 or 128 Slaney mels (n_fft 400, hop 160, power, log10, clamp, rescale).
  static LogMelConfig whisper(size_t nMels);
  /// Gemma 4 (Gemma4AudioFeatureExtractor): 128 HTK mels over 0-8 kHz, 320-sample window, hop 160,
  /// FFT 512, magnitude, ln(x + 1e-3), semicausal padding, at most 30 s padded to a multiple of 128
  /// samples, frames of padding zeroed, time-major.
  static LogMelConfig gemma4();
  /// A preset by name: "whisper-80", "whisper-128" or "gemma4". Throws AudioError for other names.
  static LogMelConfig preset(const std::string& name);
  /// The convention a model's preprocessor_config.json describes (WhisperFeatureExtractor or
  /// Gemma4AudioFeatureExtractor), starting from `base` for fields it leaves out. Throws AudioError.
  static LogMelConfig fromPreprocessorConfig(const std::string& path, const LogMelConfig& base);

  /// The longest input in seconds (maxSamples / sampleRate), or 0 for any length.
  double maxSeconds() const { return maxSamples ? static_cast<double>(maxSamples) / sampleRate : 0.0; }

  /// Throws AudioError when the fields cannot describe a transform (zero sizes, window > FFT, ...).
  void validate() const;
};

/// Features laid out [nMels, nFrames], row-major (Whisper's layout; transposed() gives Gemma's).
struct Features {
  size_t nMels = 0, nFrames = 0;
  // Frames 0 .. nValid-1 hold real audio; the rest cover padding (Gemma's input_features_mask is
  // t < nValid). Whisper marks every frame valid.
  size_t nValid = 0;
  std::vector<float> data;
  float at(size_t mel, size_t frame) const { return data[mel * nFrames + frame]; }
  /// The same values laid out [nFrames, nMels].
  std::vector<float> transposed() const;
};

/// A configured extractor: window, FFT plan and filter bank are built once and reused for every call.
/// Not thread-safe (it owns its work buffers); use one per thread.
class LogMelExtractor {
 public:
  explicit LogMelExtractor(const LogMelConfig& config);
  const LogMelConfig& config() const { return config_; }
  const MelFilterBank& filters() const { return filters_; }
  /// 16 kHz mono (config().sampleRate) samples -> features. Throws AudioError for no samples, too
  /// few to frame, or more than config().maxSamples.
  Features compute(const std::vector<float>& samples);

  /// One frame's mel energies, bin m at mel[m * stride], from the padded signal's samples at `s` (the frame's
  /// first sample; CenterReflect frames start (nFft - frameLength) / 2 into their FFT window). compute() and
  /// LogMelStream both make every frame with it, so a streamed frame has the bits of the whole-clip one.
  void melFrame(const float* s, float* mel, size_t stride);
  /// Mel bin m's feature from its energy under LnAddFloor: ln(energy + melFloor), then the per-bin normalization.
  float lnFeature(float energy, size_t m) const;

 private:
  /// Pads the samples into padded_ and returns the number of frames (and of frames of real audio).
  size_t frame(const std::vector<float>& samples, size_t* validFrames);
  void melEnergies(size_t nFrames, std::vector<float>* mel);
  /// The per-bin normalization (perBinMean, perBinStddev) of mel bin m's value.
  float perBin(float v, size_t m) const;
  /// |FFT(frame_)| or its square into spectrum_, in the configured precision.
  void spectrum();

  LogMelConfig config_;
  std::vector<float> window_;
  MelFilterBank filters_;
  std::vector<float> padded_, frame_, spectrum_;
  // Exactly one of the two plans exists, by config().fftInDouble.
  std::unique_ptr<RealFft<float>> fftFloat_;
  std::unique_ptr<RealFft<double>> fftDouble_;
  std::vector<ComplexOf<float>> binsFloat_;
  std::vector<double> frameDouble_;
  std::vector<ComplexOf<double>> binsDouble_;
};

/// One-shot: LogMelExtractor(config).compute(samples).
Features logMel(const std::vector<float>& samples, const LogMelConfig& config);

}  // namespace saguaro::audio
